import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ExtractionInputTooLargeError, ExtractionTimeoutError, ExtractorUnavailableError, TextExtractionError, UnsupportedDocumentTypeError } from './errors';
import { extractText } from './extract-text';
import { buildDocx } from '@docflow/testing';
import { buildPdf, buildPng, buildPngHeader } from '@docflow/testing';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** PDF and DOCX parse in a worker thread; its first start loads PDF.js. */
jest.setTimeout(30_000);

describe('extractText', () => {
  const twoPagePdf = buildPdf([
    ['Invoice 2026-0042', 'Total due: 1,250.00 EUR'],
    ['Second page', 'Payment terms: 30 days'],
  ]);

  describe('PDF', () => {
    it('returns the text of each page', async () => {
      const result = await extractText(twoPagePdf, 'application/pdf');
      expect(result.mime).toBe('application/pdf');
      expect(result.truncated).toBe(false);
      expect(result.pages).toHaveLength(2);
      expect(result.pages![0]).toEqual({ page: 1, text: expect.stringContaining('Invoice 2026-0042') });
      expect(result.pages![0]!.text).toContain('Total due: 1,250.00 EUR');
      expect(result.pages![0]!.text).not.toContain('Payment terms');
      expect(result.pages![1]).toEqual({ page: 2, text: expect.stringContaining('Payment terms: 30 days') });
      expect(result.text).toBe(`${result.pages![0]!.text}\n\n${result.pages![1]!.text}`);
    });

    it('reads from a path too, with the MIME type given with parameters', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'docflow-extract-'));
      try {
        const file = path.join(dir, 'doc.pdf');
        await writeFile(file, twoPagePdf);
        const result = await extractText(file, 'Application/PDF; charset=binary');
        expect(result.pages).toHaveLength(2);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('stops at maxPages and says so', async () => {
      const result = await extractText(twoPagePdf, 'application/pdf', { maxPages: 1 });
      expect(result.pages).toHaveLength(1);
      expect(result.text).toContain('Invoice');
      expect(result.text).not.toContain('Payment');
      expect(result.truncated).toBe(true);
    });

    it('cuts the text at maxChars', async () => {
      const result = await extractText(twoPagePdf, 'application/pdf', { maxChars: 10 });
      expect(result.text).toBe('Invoice 20');
      expect(result.pages).toEqual([{ page: 1, text: 'Invoice 20' }]);
      expect(result.truncated).toBe(true);
    });

    it('reports a damaged PDF as an extraction error', async () => {
      const broken = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('garbage '.repeat(50))]);
      await expect(extractText(broken, 'application/pdf')).rejects.toBeInstanceOf(TextExtractionError);
    });

    it('stops a parse that overruns timeoutMs', async () => {
      await expect(extractText(twoPagePdf, 'application/pdf', { timeoutMs: 1 })).rejects.toBeInstanceOf(ExtractionTimeoutError);
    });
  });

  describe('DOCX', () => {
    it('returns raw text, split into pages at explicit page breaks', async () => {
      const docx = buildDocx(['Master services agreement', 'Between Acme and Docflow', { pageBreak: true }, 'Schedule A: fees']);
      const result = await extractText(docx, DOCX);
      expect(result.pages).toEqual([
        { page: 1, text: 'Master services agreement\n\nBetween Acme and Docflow' },
        { page: 2, text: 'Schedule A: fees' },
      ]);
      expect(result.text).toBe('Master services agreement\n\nBetween Acme and Docflow\n\nSchedule A: fees');
      expect(result.truncated).toBe(false);
    });

    it('gives pages null without page breaks', async () => {
      const result = await extractText(buildDocx(['One paragraph', 'Another & more <text>']), DOCX);
      expect(result.pages).toBeNull();
      expect(result.text).toBe('One paragraph\n\nAnother & more <text>');
    });

    it('refuses a DOCX that expands enormously before parsing it', async () => {
      const bomb = buildDocx(['x'], { extraEntries: [{ name: 'word/media/zeros.bin', data: Buffer.alloc(20 * 1024 * 1024) }] });
      await expect(extractText(bomb, DOCX)).rejects.toThrow(/expands more than 100 times/);
    });

    it('refuses a zip that is not a Word document', async () => {
      await expect(extractText(Buffer.from('PK\x03\x04 not really'), DOCX)).rejects.toBeInstanceOf(TextExtractionError);
    });
  });

  describe('text types', () => {
    it('decodes UTF-8 text, CSV and JSON as they are', async () => {
      expect(await extractText(Buffer.from('Grüße aus Köln\n'), 'text/plain')).toEqual({
        text: 'Grüße aus Köln\n',
        pages: null,
        mime: 'text/plain',
        truncated: false,
      });
      expect((await extractText(Buffer.from('a,b\n1,2\n'), 'text/csv')).text).toBe('a,b\n1,2\n');
      expect((await extractText(Buffer.from('{"a":1}'), 'application/json')).mime).toBe('application/json');
    });

    it('cuts at maxChars without splitting a surrogate pair', async () => {
      const result = await extractText(Buffer.from('ab😀cd'), 'text/plain', { maxChars: 3 });
      expect(result).toMatchObject({ text: 'ab', truncated: true });
    });

    it('refuses invalid UTF-8', async () => {
      await expect(extractText(Buffer.from([0x61, 0xff, 0x62]), 'text/plain')).rejects.toBeInstanceOf(TextExtractionError);
    });
  });

  describe('limits and types', () => {
    it('refuses input over maxBytes, from a buffer or a file', async () => {
      await expect(extractText(Buffer.alloc(11, 0x61), 'text/plain', { maxBytes: 10 })).rejects.toBeInstanceOf(ExtractionInputTooLargeError);
      const dir = await mkdtemp(path.join(os.tmpdir(), 'docflow-extract-'));
      try {
        const file = path.join(dir, 'big.txt');
        await writeFile(file, Buffer.alloc(11, 0x61));
        await expect(extractText(file, 'text/plain', { maxBytes: 10 })).rejects.toBeInstanceOf(ExtractionInputTooLargeError);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it.each([['application/msword'], ['application/vnd.ms-excel'], ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'], ['application/zip']])(
      'has no extractor for %s',
      async (mime) => {
        await expect(extractText(Buffer.from('x'), mime)).rejects.toBeInstanceOf(UnsupportedDocumentTypeError);
      },
    );

    it('refuses an image declaring a gigantic canvas before OCR', async () => {
      await expect(extractText(buildPngHeader(100_000, 100_000), 'image/png', { tesseractPath: '/nonexistent/tesseract' })).rejects.toThrow(/100000x100000 pixels/);
    });

    it('says OCR is unavailable when tesseract is missing', async () => {
      await expect(extractText(buildPng(8, 8), 'image/png', { tesseractPath: '/nonexistent/tesseract' })).rejects.toBeInstanceOf(ExtractorUnavailableError);
    });
  });
});
