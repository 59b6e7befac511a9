export * from './errors';
export { ACCEPTED_MIME_TYPES, EXTENSION_BY_MIME, normaliseMimeType, type AcceptedMimeType } from './mime';
export { sniffMime, type SniffedType } from './sniff-mime';
export { extractText, type ExtractTextOptions, type ExtractTextResult, type ExtractedPage } from './extract-text';
