/**
 * Client filenames are kept only for Content-Disposition: files are stored
 * under generated keys. A filename is reduced to its last path segment, without
 * control or bidi-override characters, leading dots or surrounding blanks.
 */
const MAX_FILENAME_LENGTH = 200;
const FALLBACK = 'document';

function trimToLength(name: string, max: number): string {
  if (name.length <= max) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 11 ? name.slice(dot) : '';
  return `${name.slice(0, max - ext.length)}${ext}`;
}

export function sanitiseFilename(raw: string | undefined): string {
  if (!raw) return FALLBACK;
  const segment = raw.split(/[/\\]/).pop() ?? '';
  const cleaned = segment
    .normalize('NFC')
    // Control characters, and the bidi controls that can disguise an extension.
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
    .trim();
  return cleaned === '' ? FALLBACK : trimToLength(cleaned, MAX_FILENAME_LENGTH);
}

/** `report.docx` → `report.pdf`; a name without extension gains one. */
export function withExtension(filename: string, ext: string): string {
  const dot = filename.lastIndexOf('.');
  const stem = dot > 0 ? filename.slice(0, dot) : filename;
  return `${stem}.${ext}`;
}

/** The lower-case extension of a filename without its dot, or ''. */
export function extensionOf(filename: string | undefined): string {
  const match = filename ? /\.([^./\\]+)$/.exec(filename) : null;
  return match?.[1]?.toLowerCase() ?? '';
}

function rfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>`
 * (RFC 6266 / 5987): the quoted form holds only printable ASCII without quotes
 * or backslashes; clients that understand filename* get the exact name.
 */
export function attachmentDisposition(filename: string): string {
  const name = sanitiseFilename(filename);
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${rfc5987(name)}`;
}
