import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { UserDataCopy } from './user-data';

export const EXPORT_FORMAT = 'docflow-user-export';
export const EXPORT_FORMAT_VERSION = 1;

/** One holder's copy, under its service's folder in the archive. */
export interface ServiceCopy {
  service: string;
  copy: UserDataCopy;
}

/** manifest.json at the root of every export archive: what each entry is, so the archive reads without Docflow. */
export interface ExportManifest {
  format: typeof EXPORT_FORMAT;
  version: number;
  export_id: number;
  user_id: number;
  generated_at: string;
  sections: { path: string; service: string; name: string; records: number }[];
  files: { path: string; service: string; bytes: number; mime_type: string }[];
}

/** A name safe as one path segment in any unzip tool (no separators, no dot-dot, no control characters). */
export function archiveSegment(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return (cleaned || 'file').slice(0, 150);
}

/**
 * The export archive as a zip stream (yazl): manifest.json, then one JSON
 * file per section (`<service>/<section>.json`, pretty-printed) and the
 * stored files (`<service>/<path>`), each file opened only when its turn
 * comes so that a large export holds one file handle at a time.
 */
export function exportArchive(meta: { exportId: number; userId: number; generatedAt: Date }, copies: readonly ServiceCopy[]): { stream: Readable; manifest: ExportManifest } {
  const manifest: ExportManifest = {
    format: EXPORT_FORMAT,
    version: EXPORT_FORMAT_VERSION,
    export_id: meta.exportId,
    user_id: meta.userId,
    generated_at: meta.generatedAt.toISOString(),
    sections: [],
    files: [],
  };
  const zip = new ZipFile();
  const stream = zip.outputStream as Readable;
  // yazl reports a file that fails to open on the ZipFile; the stream's reader (storage) must see it.
  zip.on('error', (err: unknown) => stream.destroy(err instanceof Error ? err : new Error(String(err))));
  // The reader attaches its listeners only when it starts (storage.put opens its temporary file first); a file
  // that fails to open before then must not be an unhandled 'error' event, which would end the process. The
  // error stays on the stream (`errored`), where the reader's pipeline still finds it and fails the export.
  stream.on('error', () => undefined);
  const entries: (() => void)[] = [];
  for (const { service, copy } of copies) {
    const folder = archiveSegment(service);
    for (const [name, records] of Object.entries(copy.sections)) {
      const path = `${folder}/${archiveSegment(name)}.json`;
      manifest.sections.push({ path, service, name, records: records.length });
      entries.push(() => zip.addBuffer(Buffer.from(JSON.stringify(records, null, 2), 'utf8'), path, { mtime: meta.generatedAt }));
    }
    for (const file of copy.files ?? []) {
      const path = `${folder}/${file.path
        .split('/')
        .map((s) => archiveSegment(s))
        .join('/')}`;
      manifest.files.push({ path, service, bytes: file.bytes, mime_type: file.mimeType });
      entries.push(() =>
        zip.addReadStreamLazy(path, { mtime: meta.generatedAt }, (cb) => {
          file.open().then(
            (readable) => cb(null, readable),
            (err: unknown) => cb(err, undefined as unknown as Readable),
          );
        }),
      );
    }
  }
  zip.addBuffer(Buffer.from(JSON.stringify(manifest, null, 2), 'utf8'), 'manifest.json', { mtime: meta.generatedAt });
  for (const add of entries) add();
  zip.end();
  return { stream, manifest };
}
