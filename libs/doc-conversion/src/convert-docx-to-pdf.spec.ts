import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DocConverter } from './convert-docx-to-pdf';
import { ConversionFailedError, ConversionRefusedError, ConversionTimeoutError, ConverterUnavailableError } from './errors';
import { silentLogger } from '@docflow/service-kit';
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

  describe('sandbox', () => {
    let server: net.Server;
    let port: number;

    beforeAll(async () => {
      server = net.createServer((socket) => socket.end('internal secret page'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as net.AddressInfo).port;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    /** A stand-in soffice that reports, inside the PDF it writes, what it could see and do. */
    const reportingSoffice = (): string => `
while [ $# -gt 0 ]; do
  case "$1" in --outdir) out="$2"; shift 2;; *) shift;; esac
done
{
  printf '%%PDF-1.4\\n'
  env
  echo "limits=$(ulimit -t),$(ulimit -v),$(ulimit -f)"
  (exec 3<>/dev/tcp/127.0.0.1/${port} && echo network=reachable) 2>/dev/null || echo network=blocked
} > "$out/document.pdf"`;

    it('hides the service’s secrets from soffice, takes its network and limits its CPU, memory and files', async () => {
      process.env.DOCFLOW_SPEC_JWT_SECRET = 'secret-that-soffice-must-not-see-0123';
      try {
        const converter = new DocConverter({
          sofficePath: await script('soffice-report', reportingSoffice()),
          tempDir: work,
          sandboxLimits: { addressSpaceBytes: 1024 * 1024 * 1024, fileSizeBytes: 64 * 1024 * 1024 },
        });
        const result = await converter.convertDocxToPdf(docx, { timeoutMs: 10_000 });
        const seen = await readFile(result.pdfPath, 'utf8');
        await rm(path.dirname(result.pdfPath), { recursive: true, force: true });
        expect(seen).not.toContain('secret-that-soffice-must-not-see-0123');
        expect(seen).not.toContain('DOCFLOW_SPEC_JWT_SECRET');
        expect(seen).toMatch(/^SAL_USE_VCLPLUGIN=svp$/m);
        expect(seen).toMatch(/^HOME=.*\/docflow-soffice-[^/]+$/m);
        expect(seen).toContain(`limits=25,${1024 * 1024},${64 * 1024}`);
        expect(seen).toContain('network=blocked');
      } finally {
        delete process.env.DOCFLOW_SPEC_JWT_SECRET;
      }
    });

    const remoteImage = buildDocx(['See the picture'], {
      extraEntries: [
        {
          name: 'word/_rels/document.xml.rels',
          data: '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="http://169.254.169.254/latest/meta-data/" TargetMode="External"/></Relationships>',
        },
      ],
    });
    const hyperlinkOnly = buildDocx(['See the site'], {
      extraEntries: [
        {
          name: 'word/_rels/document.xml.rels',
          data: '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/" TargetMode="External"/></Relationships>',
        },
      ],
    });

    it('without a network namespace, refuses documents that link remote resources (hyperlinks stay allowed) and says so once in the log', async () => {
      const warnings: string[] = [];
      const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message), child: () => logger };
      const converter = new DocConverter({ sofficePath: await script('soffice-ok', producePdf(path.join(dir, 'args.txt'))), tempDir: work, network: 'none', logger });
      new DocConverter({ sofficePath: 'soffice', network: 'none', logger });
      expect(warnings).toEqual(['LibreOffice runs without network isolation (no network namespace on this host): documents that link remote resources are refused']);

      const remote = path.join(dir, 'remote.docx');
      await writeFile(remote, remoteImage);
      const err = await converter.convertDocxToPdf(remote).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConversionRefusedError);
      expect((err as ConversionRefusedError).reason).toBe('remote_resource');

      const linked = path.join(dir, 'linked.docx');
      await writeFile(linked, hyperlinkOnly);
      await expect(converter.convertDocxToPdf(linked, { outDir: path.join(dir, 'pdf') })).resolves.toMatchObject({ pages: 2 });
    });

    it('with a network namespace, leaves remote links to the namespace', async () => {
      const converter = new DocConverter({ sofficePath: await script('soffice-ok', producePdf(path.join(dir, 'args.txt'))), tempDir: work });
      const remote = path.join(dir, 'remote.docx');
      await writeFile(remote, remoteImage);
      await expect(converter.convertDocxToPdf(remote, { outDir: path.join(dir, 'pdf') })).resolves.toMatchObject({ pages: 2 });
    });
  });
});
