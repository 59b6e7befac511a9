export * from './checksums';
export * from './crypto-addresses';
