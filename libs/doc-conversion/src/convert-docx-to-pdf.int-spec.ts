import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DocConverter } from './convert-docx-to-pdf';
import { ConversionTimeoutError } from './errors';
import { buildDocx } from '@docflow/testing';
import { liveGroupMembers } from './testing/process-group';

/**
 * Real LibreOffice (installed by scripts/install-system-deps.sh). Its first
 * start with a fresh profile takes seconds, hence the generous timeout.
 */
jest.setTimeout(180_000);

const run = promisify(execFile);

describe('DocConverter with real LibreOffice', () => {
  let dir: string;
  let work: string;
  let docx: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'docflow-soffice-it-'));
    work = path.join(dir, 'work');
    await mkdir(work);
    docx = path.join(dir, 'two-pages.docx');
    await writeFile(docx, buildDocx(['First page paragraph about invoices.', { pageBreak: true }, 'Second page paragraph about contracts.']));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('converts a hand-written two-page DOCX to a two-page PDF', async () => {
    const converter = new DocConverter({ tempDir: work, defaultTimeoutMs: 120_000 });
    const outDir = path.join(dir, 'out');
    const result = await converter.convertDocxToPdf(docx, { outDir });
    expect(result.pdfPath).toBe(path.join(outDir, 'two-pages.pdf'));
    expect((await readFile(result.pdfPath)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(result.pages).toBe(2);
    const info = await run('pdfinfo', [result.pdfPath]);
    expect(info.stdout).toMatch(/^Pages:\s+2$/m);
    const page2 = await run('pdftotext', ['-f', '2', '-l', '2', result.pdfPath, '-']);
    expect(page2.stdout).toContain('Second page paragraph about contracts.');
    expect(page2.stdout).not.toContain('invoices');
    expect(await readdir(work)).toEqual([]);
  });

  it('kills soffice and its children when the timeout passes', async () => {
    const converter = new DocConverter({ tempDir: work });
    let spawned: number | undefined;
    const err = await converter
      .convertDocxToPdf(docx, {
        timeoutMs: 300,
        onSpawn: (pid) => {
          spawned = pid;
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConversionTimeoutError);
    expect((err as ConversionTimeoutError).pid).toBe(spawned);
    expect(liveGroupMembers(spawned!)).toEqual([]);
    expect(await readdir(work)).toEqual([]);
  });
});
