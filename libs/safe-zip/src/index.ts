export * from './inspect-zip';
