import { buildZip } from '@docflow/testing';
import { inspectZip } from './inspect-zip';

describe('inspectZip', () => {
  it('inflates every entry, counting real sizes, and hands back the entries asked for', async () => {
    const zip = buildZip([
      { name: '[Content_Types].xml', data: '<Types/>' },
      { name: 'word/document.xml', data: 'x'.repeat(5000) },
      { name: 'word/media/', data: '', method: 'store' },
    ]);
    const inspection = await inspectZip({ buffer: zip }, { keep: ['[Content_Types].xml'] });
    if (!inspection.ok) throw new Error(inspection.message);
    expect(inspection.entries.map((e) => [e.name, e.inflatedSize])).toEqual([
      ['[Content_Types].xml', 8],
      ['word/document.xml', 5000],
      ['word/media/', 0],
    ]);
    expect(inspection.totalInflatedBytes).toBe(5008);
    expect(inspection.kept['[Content_Types].xml']?.toString()).toBe('<Types/>');
  });

  it('stops at the first byte past a lie: an entry declared as 100 bytes that inflates to 32 MiB', async () => {
    const zip = buildZip([{ name: 'a.bin', data: Buffer.alloc(32 * 1024 * 1024), declaredUncompressedSize: 100 }]);
    expect(await inspectZip({ buffer: zip }, { limits: { maxCompressionRatio: 1e9 } })).toEqual({
      ok: false,
      reason: 'declared_size_mismatch',
      message: 'an entry inflates to another size than the archive declares',
    });
  });

  it('counts the total inflated bytes against the limit, and judges the ratio of what came out', async () => {
    const honest = buildZip([{ name: 'a.bin', data: Buffer.alloc(3 * 1024 * 1024) }]);
    expect(await inspectZip({ buffer: honest }, { limits: { maxCompressionRatio: 1e9, maxTotalInflatedBytes: 2 * 1024 * 1024 } })).toMatchObject({ ok: false, reason: 'total_uncompressed_too_large' });
    expect(await inspectZip({ buffer: honest })).toMatchObject({ ok: false, reason: 'compression_ratio_too_high' });
  });

  it('answers not_a_zip for other bytes', async () => {
    expect(await inspectZip({ buffer: Buffer.from('just text, no archive') })).toMatchObject({ ok: false, reason: 'not_a_zip' });
  });
});
