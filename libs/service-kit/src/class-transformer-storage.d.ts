// class-transformer keeps its decorators' metadata in this module but ships no
// declaration for the path; its type is the package's own MetadataStorage.
declare module 'class-transformer/cjs/storage' {
  export const defaultMetadataStorage: import('class-transformer/types/MetadataStorage').MetadataStorage;
}
