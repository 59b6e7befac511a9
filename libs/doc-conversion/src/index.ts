export * from './errors';
export { DocConverter, convertDocxToPdf, type ConvertOptions, type ConvertResult, type DocConverterOptions } from './convert-docx-to-pdf';
export { inspectOfficeZip, DEFAULT_OFFICE_ZIP_LIMITS, type InspectOfficeZipOptions, type OfficeZipKind, type OfficeZipLimits, type OfficeZipReport } from './inspect-office-zip';
export { ConcurrencyLimiter } from './limiter';
export { countPdfPages } from './pdf-pages';
