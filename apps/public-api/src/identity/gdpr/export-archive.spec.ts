import { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { archiveSegment, exportArchive } from './export-archive';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function entryNames(buffer: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const names: string[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve(names));
      zip.readEntry();
    });
  });
}

const meta = { exportId: 7, userId: 3, generatedAt: new Date('2026-11-26T12:00:00Z') };

describe('archiveSegment', () => {
  it('keeps a name to one safe path segment', () => {
    expect(archiveSegment('report 2026 (final).pdf')).toBe('report_2026_final_.pdf');
    expect(archiveSegment('../../etc/passwd')).toBe('etc_passwd');
    expect(archiveSegment('..')).toBe('file');
    expect(archiveSegment('.hidden')).toBe('hidden');
    expect(archiveSegment('a\u0000b\nc')).toBe('a_b_c');
    expect(archiveSegment('x'.repeat(400))).toHaveLength(150);
  });
});

describe('exportArchive', () => {
  it('writes manifest.json first, then every section and file the manifest lists, under safe paths', async () => {
    const { stream, manifest } = exportArchive(meta, [
      { service: 'identity', copy: { sections: { account: [{ id: 3 }], audit_log: [] } } },
      {
        service: 'documents',
        copy: {
          sections: { documents: [{ id: 1 }, { id: 2 }] },
          files: [{ path: 'files/1-../../evil.txt', bytes: 5, mimeType: 'text/plain', open: async () => Readable.from([Buffer.from('hello')]) }],
        },
      },
    ]);
    const names = await entryNames(await collect(stream));
    expect(names).toEqual(['manifest.json', 'identity/account.json', 'identity/audit_log.json', 'documents/documents.json', 'documents/files/1-../file/evil.txt']);
    expect(manifest.sections).toEqual([
      { path: 'identity/account.json', service: 'identity', name: 'account', records: 1 },
      { path: 'identity/audit_log.json', service: 'identity', name: 'audit_log', records: 0 },
      { path: 'documents/documents.json', service: 'documents', name: 'documents', records: 2 },
    ]);
    expect(manifest.files.map((f) => f.path)).toEqual([names[4]]);
    expect(names.every((n) => !n.split('/').includes('..'))).toBe(true);
  });

  it('fails the stream when a file cannot be opened, so that no half archive is stored', async () => {
    const { stream } = exportArchive(meta, [
      { service: 'documents', copy: { sections: {}, files: [{ path: 'files/9-gone.pdf', bytes: 1, mimeType: 'application/pdf', open: () => Promise.reject(new Error('object not found')) }] } },
    ]);
    await expect(collect(stream)).rejects.toThrow('object not found');
  });
});

describe('a stored file that cannot be opened', () => {
  it('fails the archive stream when its reader starts late, without an unhandled error event', async () => {
    const missing = Object.assign(new Error('Stored file not found'), { code: 'not_found' });
    const { stream } = exportArchive({ exportId: 9, userId: 3, generatedAt: new Date('2030-01-01T00:00:00Z') }, [
      { service: 'documents', copy: { sections: { documents: [{ id: 1 }] }, files: [{ path: 'files/1-a.txt', bytes: 3, mimeType: 'text/plain', open: () => Promise.reject(missing) }] } },
    ]);
    // The reader (storage.put) first opens its temporary file: the archive fails before anyone listens.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stream.destroyed).toBe(true);
    await expect(collect(stream)).rejects.toThrow('Stored file not found');
  });
});
