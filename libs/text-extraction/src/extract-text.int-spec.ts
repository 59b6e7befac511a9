import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { extractText } from './extract-text';
import { sniffMime } from './sniff-mime';
import { buildDocx } from '@docflow/testing';

/**
 * Against the real tools (installed by scripts/install-system-deps.sh):
 * LibreOffice renders test documents to PDF and legacy .doc, poppler's
 * pdftoppm renders a PDF page to PNG (Writer alone has no PNG export), and
 * tesseract reads the PNG back. LibreOffice's first start takes seconds.
 */
jest.setTimeout(180_000);

const run = promisify(execFile);

describe('extractText and sniffMime on files made by LibreOffice', () => {
  let dir: string;

  /** `soffice --convert-to <format>` of a hand-written DOCX; returns the output file. */
  async function convert(name: string, docx: Buffer, format: string, ext: string): Promise<Buffer> {
    const input = path.join(dir, `${name}.docx`);
    await writeFile(input, docx);
    const profile = pathToFileURL(path.join(dir, `profile-${name}`)).href;
    await run('soffice', ['--headless', '--norestore', '--nolockcheck', `-env:UserInstallation=${profile}`, '--convert-to', format, '--outdir', dir, input], {
      timeout: 150_000,
      env: { ...process.env, HOME: dir },
    });
    return readFile(path.join(dir, `${name}.${ext}`));
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'docflow-extract-it-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads printed words from a PNG and a JPEG by OCR', async () => {
    await convert('ocr', buildDocx(['QUARTERLY INVOICE', 'Docflow Limited'], { fontSizeHalfPoints: 56 }), 'pdf', 'pdf');
    // 28 pt text at 150 dpi: glyphs about 40 px high.
    await run('pdftoppm', ['-png', '-r', '150', '-f', '1', '-l', '1', '-singlefile', path.join(dir, 'ocr.pdf'), path.join(dir, 'ocr')], { timeout: 60_000 });
    const png = await readFile(path.join(dir, 'ocr.png'));
    expect(await sniffMime(png, 'scan.pdf')).toEqual({ mime: 'image/png', ext: 'png' });
    const result = await extractText(png, 'image/png');
    expect(result.mime).toBe('image/png');
    expect(result.text).toMatch(/QUARTERLY\s+INVOICE/);
    expect(result.text).toContain('Docflow');
    expect(result.pages).toEqual([{ page: 1, text: result.text }]);

    await run('pdftoppm', ['-jpeg', '-r', '150', '-f', '1', '-l', '1', '-singlefile', path.join(dir, 'ocr.pdf'), path.join(dir, 'ocr')], { timeout: 60_000 });
    const jpeg = await readFile(path.join(dir, 'ocr.jpg'));
    expect(await sniffMime(jpeg)).toEqual({ mime: 'image/jpeg', ext: 'jpg' });
    expect((await extractText(jpeg, 'image/jpeg')).text).toMatch(/QUARTERLY\s+INVOICE/);
  });

  it('reads each page of a PDF that LibreOffice wrote', async () => {
    const pdf = await convert('pages', buildDocx(['Purchase order 7731', { pageBreak: true }, 'Delivery address: Harbour Street 5']), 'pdf', 'pdf');
    expect((await sniffMime(pdf))?.mime).toBe('application/pdf');
    const result = await extractText(pdf, 'application/pdf');
    expect(result.pages).toHaveLength(2);
    expect(result.pages![0]!.text).toContain('Purchase order 7731');
    expect(result.pages![1]!.text).toContain('Delivery address: Harbour Street 5');
    expect(result.pages![0]!.text).not.toContain('Harbour');
  });

  it('recognises a legacy Word 97 .doc by content', async () => {
    const doc = await convert('legacy', buildDocx(['Old format']), 'doc:MS Word 97', 'doc');
    expect(await sniffMime(doc, 'legacy.txt')).toEqual({ mime: 'application/msword', ext: 'doc' });
  });
});
