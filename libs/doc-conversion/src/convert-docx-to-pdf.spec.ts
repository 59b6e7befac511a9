import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DocConverter } from './convert-docx-to-pdf';
import { ConversionFailedError, ConversionRefusedError, ConversionTimeoutError, ConverterUnavailableError } from './errors';
import { buildDocx } from '@docflow/testing';
import { isRunning, liveGroupMembers } from './testing/process-group';

/**
 * The converter's process handling, driven by stand-in `soffice` scripts so
 * that each outcome is deterministic and fast. The real LibreOffice runs in
 * convert-docx-to-pdf.int-spec.ts.
 */
describe('DocConverter with a stand-in soffice', () => {
  let dir: string;
  let work: string;
  let docx: string;

  async function script(name: string, body: string): Promise<string> {
    const file = path.join(dir, name);
    await writeFile(file, `#!/bin/bash\n${body}\n`);
    await chmod(file, 0o755);
    return file;
  }

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'docflow-convert-'));
    work = path.join(dir, 'work');
    await mkdir(work);
    docx = path.join(dir, 'report 2026.docx');
    await writeFile(docx, buildDocx(['Hello', { pageBreak: true }, 'World']));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const producePdf = (argsFile: string): string => `
printf '%s\\n' "$@" > '${argsFile}'
while [ $# -gt 0 ]; do
  case "$1" in --outdir) out="$2"; shift 2;; *) last="$1"; shift;; esac
done
name=$(basename "$last" .docx)
printf '%%PDF-1.4\\n1 0 obj <</Type/Pages/Count 2>> endobj\\n%%%%EOF\\n' > "$out/$name.pdf"`;

  it('runs soffice headless with a fresh profile, moves the PDF to outDir and cleans its work folder', async () => {
    const argsFile = path.join(dir, 'args.txt');
    const converter = new DocConverter({ sofficePath: await script('soffice-ok', producePdf(argsFile)), tempDir: work });
    const outDir = path.join(dir, 'pdf');
    const result = await converter.convertDocxToPdf(docx, { outDir });
    expect(result).toEqual({ pdfPath: path.join(outDir, 'report_2026.pdf'), pages: 2 });
    expect((await readFile(result.pdfPath, 'latin1')).startsWith('%PDF-')).toBe(true);

    const args = (await readFile(argsFile, 'utf8')).trim().split('\n');
    expect(args.slice(0, 5)).toEqual(['--headless', '--norestore', '--nolockcheck', '--nologo', '--nodefault']);
    expect(args[5]).toMatch(/^-env:UserInstallation=file:\/\/.*\/docflow-soffice-[^/]+\/profile$/);
    expect(args.slice(6, 9)).toEqual(['--convert-to', 'pdf:writer_pdf_Export', '--outdir']);
    expect(await readdir(work)).toEqual([]);
  });

  it('puts the PDF in a fresh temp folder when no outDir is given', async () => {
    const converter = new DocConverter({ sofficePath: await script('soffice-ok', producePdf(path.join(dir, 'a.txt'))), tempDir: work });
    const result = await converter.convertDocxToPdf(docx);
    expect(path.dirname(result.pdfPath)).toMatch(/docflow-pdf-[^/]+$/);
    expect(await readdir(work)).toEqual([path.basename(path.dirname(result.pdfPath))]);
  });

  it('refuses a zip bomb before soffice runs', async () => {
    const marker = path.join(dir, 'soffice-ran');
    const converter = new DocConverter({ sofficePath: await script('soffice-marker', `touch '${marker}'`), tempDir: work });
    const bomb = path.join(dir, 'bomb.docx');
    await writeFile(bomb, buildDocx(['x'], { extraEntries: [{ name: 'word/media/zeros.bin', data: Buffer.alloc(20 * 1024 * 1024) }] }));
    await expect(converter.convertDocxToPdf(bomb)).rejects.toBeInstanceOf(ConversionRefusedError);
    await expect(readFile(marker)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(work)).toEqual([]);
  });

  it('kills the whole process group on timeout and removes the work folder', async () => {
    const childPidFile = path.join(dir, 'child.pid');
    const converter = new DocConverter({
      sofficePath: await script('soffice-hang', `sleep 300 &\necho $! > '${childPidFile}'\nsleep 300`),
      tempDir: work,
    });
    const err = await converter.convertDocxToPdf(docx, { timeoutMs: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConversionTimeoutError);
    const timeout = err as ConversionTimeoutError;
    expect(timeout.details).toEqual({ timeoutMs: 500 });
    expect(timeout.pid).toEqual(expect.any(Number));
    expect(liveGroupMembers(timeout.pid!)).toEqual([]);
    const childPid = Number(await readFile(childPidFile, 'utf8'));
    expect(childPid).toBeGreaterThan(0);
    expect(isRunning(childPid)).toBe(false);
    expect(await readdir(work)).toEqual([]);
  });

  it('reports soffice exiting 0 without a PDF as a conversion failure', async () => {
    const converter = new DocConverter({ sofficePath: await script('soffice-silent', 'echo "Error: source file could not be loaded"'), tempDir: work });
    const err = await converter.convertDocxToPdf(docx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConversionFailedError);
    expect((err as ConversionFailedError).output).toContain('source file could not be loaded');
    expect(await readdir(work)).toEqual([]);
  });

  it('reports a non-zero exit as a conversion failure', async () => {
    const converter = new DocConverter({ sofficePath: await script('soffice-fail', 'exit 3'), tempDir: work });
    const err = await converter.convertDocxToPdf(docx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConversionFailedError);
    expect((err as ConversionFailedError).exitCode).toBe(3);
  });

  it('says the converter is unavailable when soffice is not installed', async () => {
    const converter = new DocConverter({ sofficePath: path.join(dir, 'no-such-soffice'), tempDir: work });
    await expect(converter.convertDocxToPdf(docx)).rejects.toBeInstanceOf(ConverterUnavailableError);
    expect(await readdir(work)).toEqual([]);
  });
});
