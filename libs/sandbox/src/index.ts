export * from './sandbox';
