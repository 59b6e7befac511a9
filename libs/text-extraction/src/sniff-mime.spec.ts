import { sniffMime } from './sniff-mime';
import { buildCompoundFile } from './testing/cfb-builder';
import { buildDocx, ROOT_RELS_XML } from '@docflow/testing';
import { buildPdf, buildPng } from '@docflow/testing';
import { buildZip } from '@docflow/testing';

const contentTypes = (main: string): string =>
  `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/x" ContentType="${main}"/></Types>`;

describe('sniffMime', () => {
  it('calls a text file named .png text/plain, not image/png', async () => {
    expect(await sniffMime(Buffer.from('Quarterly figures, not an image.\n'), 'chart.png')).toEqual({ mime: 'text/plain', ext: 'txt' });
  });

  it('recognises a real PNG whatever its name', async () => {
    expect(await sniffMime(buildPng(4, 3), 'notes.txt')).toEqual({ mime: 'image/png', ext: 'png' });
  });

  it('recognises a real PDF', async () => {
    expect(await sniffMime(buildPdf([['Hello']]))).toEqual({ mime: 'application/pdf', ext: 'pdf' });
  });

  it('recognises a real DOCX from its zip directory and [Content_Types].xml', async () => {
    expect(await sniffMime(buildDocx(['Hello']), 'upload.bin')).toEqual({
      mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      ext: 'docx',
    });
  });

  it('recognises an XLSX', async () => {
    const xlsx = buildZip([
      { name: '[Content_Types].xml', data: contentTypes('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml') },
      { name: '_rels/.rels', data: ROOT_RELS_XML },
      { name: 'xl/workbook.xml', data: '<workbook/>' },
    ]);
    expect(await sniffMime(xlsx)).toEqual({ mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', ext: 'xlsx' });
  });

  it('refuses a macro-enabled .docm, a plain zip, and a zip that only names word/document.xml', async () => {
    const docm = buildZip([
      { name: '[Content_Types].xml', data: contentTypes('application/vnd.ms-word.document.macroEnabled.main+xml') },
      { name: 'word/document.xml', data: '<w:document/>' },
    ]);
    expect(await sniffMime(docm, 'x.docx')).toBeUndefined();
    expect(await sniffMime(buildZip([{ name: 'readme.txt', data: 'hi' }]), 'x.docx')).toBeUndefined();
    expect(await sniffMime(buildZip([{ name: 'word/document.xml', data: '<w:document/>' }]), 'x.docx')).toBeUndefined();
  });

  it('tells legacy Word from legacy Excel by their root streams', async () => {
    expect(await sniffMime(buildCompoundFile(['WordDocument', '1Table']))).toEqual({ mime: 'application/msword', ext: 'doc' });
    expect(await sniffMime(buildCompoundFile(['Workbook']))).toEqual({ mime: 'application/vnd.ms-excel', ext: 'xls' });
    expect(await sniffMime(buildCompoundFile(['Book']))).toEqual({ mime: 'application/vnd.ms-excel', ext: 'xls' });
  });

  it('does not take a workbook embedded inside a Word file for an Excel file', async () => {
    expect((await sniffMime(buildCompoundFile(['WordDocument'], { storage: 'ObjectPool', streams: ['Workbook'] })))?.mime).toBe('application/msword');
    expect(await sniffMime(buildCompoundFile(['1Table'], { storage: 'ObjectPool', streams: ['Workbook'] }))).toBeUndefined();
  });

  it('refuses other compound files and damaged ones', async () => {
    expect(await sniffMime(buildCompoundFile(['PowerPoint Document']))).toBeUndefined();
    expect(await sniffMime(buildCompoundFile(['WordDocument']).subarray(0, 600))).toBeUndefined();
  });

  it('recognises JPEG, GIF and WebP signatures', async () => {
    expect((await sniffMime(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46])))?.mime).toBe('image/jpeg');
    expect((await sniffMime(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')))?.mime).toBe('image/gif');
    expect(await sniffMime(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]))).toEqual({ mime: 'image/webp', ext: 'webp' });
  });

  it('calls parseable JSON application/json', async () => {
    expect(await sniffMime(Buffer.from(' {"invoice": 42, "lines": []}\n'))).toEqual({ mime: 'application/json', ext: 'json' });
    expect((await sniffMime(Buffer.from('42'), 'answer.json'))?.mime).toBe('application/json');
    expect((await sniffMime(Buffer.from('42')))?.mime).toBe('text/plain');
  });

  it('calls unparseable JSON plain text', async () => {
    expect((await sniffMime(Buffer.from('{"unterminated": '), 'data.json'))?.mime).toBe('text/plain');
  });

  it('calls text named .csv text/csv, and the same text unnamed plain', async () => {
    const csv = Buffer.from('name,amount\nalice,10\nbob,12\n');
    expect(await sniffMime(csv, 'ledger.CSV')).toEqual({ mime: 'text/csv', ext: 'csv' });
    expect((await sniffMime(csv))?.mime).toBe('text/plain');
  });

  it('accepts UTF-8 with a BOM and non-ASCII text', async () => {
    expect((await sniffMime(Buffer.from('\ufeffGrüße, 東京\n', 'utf8')))?.mime).toBe('text/plain');
  });

  it('refuses binary that is no accepted type: NULs, invalid UTF-8, control bytes, empty', async () => {
    expect(await sniffMime(Buffer.from('text with a \0 NUL'), 'a.txt')).toBeUndefined();
    expect(await sniffMime(Buffer.from([0x61, 0x62, 0xff, 0xfe, 0x63]), 'a.txt')).toBeUndefined();
    expect(await sniffMime(Buffer.from('\x7fELF\x02\x01\x01', 'latin1'), 'a.csv')).toBeUndefined();
    expect(await sniffMime(Buffer.alloc(0), 'a.txt')).toBeUndefined();
  });

  it('judges the whole file: a control byte or a bad UTF-8 sequence at the very end refuses it, ESC and form feeds do not', async () => {
    const body = 'plain line of text\n'.repeat(6000);
    expect((await sniffMime(Buffer.from(body + '\x1b[1mbold\x1b[0m\f\v\r\n'), 'a.txt'))?.mime).toBe('text/plain');
    for (const tail of [[0x7f], [0x01], [0x1f], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      expect(await sniffMime(Buffer.concat([Buffer.from(body), Buffer.from(tail)]), 'a.txt')).toBeUndefined();
    }
  });

  it('sees JSON after a BOM or Unicode spaces, as String#trim does', async () => {
    expect((await sniffMime(Buffer.from('\ufeff{"a": 1}', 'utf8')))?.mime).toBe('application/json');
    expect((await sniffMime(Buffer.from('\u00a0\u2003 [1, 2]\n', 'utf8')))?.mime).toBe('application/json');
    expect((await sniffMime(Buffer.from('\u00a0 plain words', 'utf8')))?.mime).toBe('text/plain');
    expect((await sniffMime(Buffer.from('\t\r\n '), 'blank.json'))?.mime).toBe('text/plain');
  });

  it('does not let a .pdf name make text a PDF', async () => {
    expect((await sniffMime(Buffer.from('just words'), 'report.pdf'))?.mime).toBe('text/plain');
  });
});
