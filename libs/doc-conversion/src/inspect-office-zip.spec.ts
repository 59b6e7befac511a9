import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConversionRefusedError, type RefusalReason } from './errors';
import { inspectOfficeZip } from './inspect-office-zip';
import { buildDocx, CONTENT_TYPES_XML, ROOT_RELS_XML } from '@docflow/testing';
import { buildZip, type ZipInputEntry } from '@docflow/testing';

describe('inspectOfficeZip', () => {
  let dir: string;
  let n = 0;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'docflow-inspect-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function fileWith(content: Buffer): Promise<string> {
    n += 1;
    const file = path.join(dir, `f${n}`);
    await writeFile(file, content);
    return file;
  }

  async function refusal(content: Buffer, options: Parameters<typeof inspectOfficeZip>[1] = { expect: 'docx' }): Promise<RefusalReason> {
    const err = await inspectOfficeZip(await fileWith(content), options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConversionRefusedError);
    expect((err as ConversionRefusedError).status).toBe(422);
    return (err as ConversionRefusedError).reason;
  }

  const docxParts: ZipInputEntry[] = [
    { name: '[Content_Types].xml', data: CONTENT_TYPES_XML },
    { name: '_rels/.rels', data: ROOT_RELS_XML },
    { name: 'word/document.xml', data: '<w:document/>' },
  ];

  it('accepts a real DOCX and reports its entries', async () => {
    const report = await inspectOfficeZip(await fileWith(buildDocx(['Hello', { pageBreak: true }, 'World'])), { expect: 'docx' });
    expect(report.kind).toBe('docx');
    expect(report.entryCount).toBe(3);
    expect(report.totalUncompressedBytes).toBeGreaterThan(report.totalCompressedBytes);
  });

  it('tells an xlsx from a docx', async () => {
    const xlsx = buildZip([
      { name: '[Content_Types].xml', data: '<Types/>' },
      { name: 'xl/workbook.xml', data: '<workbook/>' },
    ]);
    expect((await inspectOfficeZip(await fileWith(xlsx))).kind).toBe('xlsx');
    expect(await refusal(xlsx)).toBe('not_a_docx');
  });

  it('refuses an archive with too many entries', async () => {
    const many = buildZip([...docxParts, ...Array.from({ length: 2001 }, (_, i) => ({ name: `word/media/x${i}.bin`, data: '', method: 'store' as const }))]);
    expect(await refusal(many)).toBe('too_many_entries');
  });

  it('refuses a small archive that expands enormously (one highly compressed entry)', async () => {
    const bomb = buildDocx(['x'], { extraEntries: [{ name: 'word/media/zeros.bin', data: Buffer.alloc(20 * 1024 * 1024) }] });
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(await refusal(bomb)).toBe('compression_ratio_too_high');
  });

  it('refuses an archive whose declared sizes lie: a part that claims 1 KiB inflates to 64 MiB', async () => {
    const liar = buildDocx(['x'], { extraEntries: [{ name: 'word/media/small.bin', data: Buffer.alloc(64 * 1024 * 1024), declaredUncompressedSize: 1024 }] });
    expect(liar.length).toBeLessThan(200 * 1024);
    // Ratio and size limits out of the way: the inflated bytes themselves give it away.
    expect(await refusal(liar, { expect: 'docx', limits: { maxCompressionRatio: 1e9 } })).toBe('declared_size_mismatch');
  });

  it('counts inflated bytes against the total, whatever the archive declares', async () => {
    const parts = Array.from({ length: 6 }, (_, i) => ({ name: `word/media/n${i}.bin`, data: randomBytes(512 * 1024), method: 'store' as const }));
    expect(await refusal(buildZip([...docxParts, ...parts]), { expect: 'docx', limits: { maxTotalUncompressedBytes: 2 * 1024 * 1024 } })).toBe('total_uncompressed_too_large');
  });

  it('counts one compressed block reused by overlapping entries as often as it is inflated', async () => {
    const block = Buffer.alloc(1024 * 1024, 7);
    const overlapping = buildZip([
      ...docxParts,
      { name: 'word/media/a.bin', data: block },
      ...Array.from({ length: 8 }, (_, i) => ({ name: `word/media/b${i}.bin`, data: block, localHeaderOffsetOf: 3 })),
    ]);
    expect(await refusal(overlapping, { expect: 'docx', limits: { maxTotalUncompressedBytes: 5 * 1024 * 1024, maxCompressionRatio: 1e9 } })).toBe('total_uncompressed_too_large');
  });

  it.each([['../evil.xml'], ['word/../../evil.xml'], ['/etc/passwd'], ['C:/evil.xml'], ['word\\..\\evil.xml']])('refuses the entry name %j', async (name) => {
    expect(await refusal(buildZip([...docxParts, { name, data: 'x' }]))).toBe('unsafe_entry_name');
  });

  it('refuses duplicate entry names', async () => {
    expect(await refusal(buildZip([...docxParts, { name: 'word/document.xml', data: 'again' }]))).toBe('duplicate_entry');
  });

  it('refuses a zip without word/document.xml as a DOCX', async () => {
    expect(
      await refusal(
        buildZip([
          { name: '[Content_Types].xml', data: CONTENT_TYPES_XML },
          { name: 'word/other.xml', data: 'x' },
        ]),
      ),
    ).toBe('not_a_docx');
  });

  it('refuses something that is not a zip', async () => {
    expect(await refusal(Buffer.from('This is a plain text file, not a document.\n'.repeat(10)))).toBe('not_a_zip');
    expect(await refusal(Buffer.from('PK'))).toBe('not_a_zip');
  });

  it('refuses a file over maxFileBytes', async () => {
    expect(await refusal(buildDocx(['x']), { expect: 'docx', limits: { maxFileBytes: 100 } })).toBe('input_too_large');
  });
});
