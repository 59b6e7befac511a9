import { copyFile, mkdir, mkdtemp, open, readFile, rename, rm, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { detectNetworkIsolation, type NetworkIsolation, resolveExecutable, sandboxed, type SandboxLimits } from '@docflow/sandbox';
import type { Logger } from '@docflow/service-kit';
import { ConversionFailedError, ConverterUnavailableError } from './errors';
import { inspectOfficeZip, type OfficeZipLimits } from './inspect-office-zip';
import { ConcurrencyLimiter } from './limiter';
import { countPdfPages } from './pdf-pages';
import { runInProcessGroup } from './run-process';

export interface DocConverterOptions {
  /** LibreOffice runs at once (each takes a few hundred MB and a core); default 1. */
  concurrency?: number;
  /** Conversions allowed to wait for a slot before new ones are refused; default 100. */
  maxQueued?: number;
  /** Default `soffice` (from PATH). */
  sofficePath?: string;
  /** Per conversion, counted from soffice's start (queue time excluded); default 60 s. */
  defaultTimeoutMs?: number;
  /** Limits for inspectOfficeZip. */
  limits?: Partial<OfficeZipLimits>;
  /** Where per-conversion work folders are made; default os.tmpdir(). */
  tempDir?: string;
  logger?: Logger;
  /** Resource limits of each soffice run; CPU seconds default to twice the timeout (soffice uses more than one thread). */
  sandboxLimits?: Partial<SandboxLimits>;
  /** Default: what the host allows, detected once (libs/sandbox). `none` refuses documents that link remote resources. */
  network?: NetworkIsolation;
}

const DEFAULT_ADDRESS_SPACE_BYTES = 3 * 1024 * 1024 * 1024;
const DEFAULT_FILE_SIZE_BYTES = 512 * 1024 * 1024;

let warnedNoNetworkIsolation = false;

export interface ConvertOptions {
  timeoutMs?: number;
  /**
   * Folder for the PDF (created if missing), named after the input with `.pdf`
   * (an existing file of that name is replaced). Without it the PDF goes into a
   * fresh temp folder that the caller removes with the file.
   */
  outDir?: string;
  /** Told soffice's pid once it starts (tests, diagnostics). */
  onSpawn?: (pid: number) => void;
}

export interface ConvertResult {
  pdfPath: string;
  /** Present when the PDF's page tree could be read. */
  pages?: number;
}

function stemOf(inputPath: string): string {
  const stem = path
    .parse(inputPath)
    .name.replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '');
  return stem === '' ? 'document' : stem;
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(from, to);
    await unlink(from);
  }
}

async function startsWithPdfMagic(file: string): Promise<boolean> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(5);
    const { bytesRead } = await handle.read(head, 0, 5, 0);
    return bytesRead === 5 && head.toString('latin1') === '%PDF-';
  } finally {
    await handle.close();
  }
}

/**
 * Converts Word documents to PDF with headless LibreOffice, one fresh profile
 * per run (no shared state, no lock files between runs), a bounded number of
 * runs at a time and a hard timeout that kills the whole soffice process group.
 * soffice runs sandboxed (libs/sandbox): none of this process's environment,
 * a private home, no network where the host allows a namespace (and, where it
 * does not, no document that links a remote resource), CPU, memory and
 * file-size limits.
 */
export class DocConverter {
  private readonly limiter: ConcurrencyLimiter;
  private readonly sofficePath: string;
  private readonly defaultTimeoutMs: number;
  private readonly limits: Partial<OfficeZipLimits>;
  private readonly tempDir: string;
  private readonly logger: Logger | undefined;
  private readonly sandboxLimits: Partial<SandboxLimits>;
  private readonly network: NetworkIsolation;

  constructor(options: DocConverterOptions = {}) {
    this.limiter = new ConcurrencyLimiter(options.concurrency ?? 1, options.maxQueued ?? 100);
    this.sofficePath = options.sofficePath ?? 'soffice';
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
    this.limits = options.limits ?? {};
    this.tempDir = options.tempDir ?? os.tmpdir();
    this.logger = options.logger;
    this.sandboxLimits = options.sandboxLimits ?? {};
    this.network = options.network ?? detectNetworkIsolation();
    if (this.network === 'none' && !warnedNoNetworkIsolation) {
      warnedNoNetworkIsolation = true;
      this.logger?.warn('LibreOffice runs without network isolation (no network namespace on this host): documents that link remote resources are refused');
    }
  }

  /** Conversions running now and waiting for a slot. */
  get load(): { active: number; queued: number } {
    return { active: this.limiter.active, queued: this.limiter.queued };
  }

  /**
   * Refuses the input (ConversionRefusedError) before queueing unless
   * inspectOfficeZip accepts it as a DOCX; then converts it when a slot is
   * free. Throws ConversionTimeoutError, ConversionFailedError, or
   * ConverterUnavailableError (soffice missing, queue full).
   */
  async convertDocxToPdf(inputPath: string, options: ConvertOptions = {}): Promise<ConvertResult> {
    await inspectOfficeZip(inputPath, { expect: 'docx', limits: this.limits, refuseRemoteResources: this.network === 'none' });
    return this.limiter.run(() => this.convert(inputPath, options));
  }

  private async convert(inputPath: string, options: ConvertOptions): Promise<ConvertResult> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const soffice = resolveExecutable(this.sofficePath);
    if (soffice === undefined) throw new ConverterUnavailableError(`${this.sofficePath} is not installed (run scripts/install-system-deps.sh)`);
    const work = await mkdtemp(path.join(this.tempDir, 'docflow-soffice-'));
    try {
      const profile = path.join(work, 'profile');
      const inDir = path.join(work, 'in');
      const outDir = path.join(work, 'out');
      const tmp = path.join(work, 'tmp');
      await Promise.all([mkdir(profile), mkdir(inDir), mkdir(outDir), mkdir(tmp)]);
      // A copy under a fixed name: the stored file may have no extension, and
      // soffice's output name follows its input's.
      const input = path.join(inDir, 'document.docx');
      await copyFile(inputPath, input);

      const started = Date.now();
      const sandbox = sandboxed({
        command: soffice,
        home: work,
        tmpDir: tmp,
        env: { SAL_USE_VCLPLUGIN: 'svp' },
        network: this.network,
        limits: {
          cpuSeconds: Math.ceil((2 * timeoutMs) / 1000) + 5,
          addressSpaceBytes: DEFAULT_ADDRESS_SPACE_BYTES,
          fileSizeBytes: DEFAULT_FILE_SIZE_BYTES,
          ...this.sandboxLimits,
        },
        args: [
          '--headless',
          '--norestore',
          '--nolockcheck',
          '--nologo',
          '--nodefault',
          `-env:UserInstallation=${pathToFileURL(profile).href}`,
          '--convert-to',
          'pdf:writer_pdf_Export',
          '--outdir',
          outDir,
          input,
        ],
      });
      const run = await runInProcessGroup(sandbox.command, sandbox.args, {
        timeoutMs,
        cwd: work,
        env: sandbox.env,
        ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
      });
      const produced = path.join(outDir, 'document.pdf');
      if (run.exitCode !== 0) {
        throw new ConversionFailedError(`LibreOffice exited with ${run.exitCode ?? run.signal ?? 'no status'}`, run.output, run.exitCode);
      }
      // soffice exits 0 even when it could not load or convert the file.
      if (!(await startsWithPdfMagic(produced))) throw new ConversionFailedError('LibreOffice produced no PDF', run.output, run.exitCode);

      const destDir = options.outDir ?? (await mkdtemp(path.join(this.tempDir, 'docflow-pdf-')));
      await mkdir(destDir, { recursive: true });
      const pdfPath = path.join(destDir, `${stemOf(inputPath)}.pdf`);
      await moveFile(produced, pdfPath);
      const pages = countPdfPages(await readFile(pdfPath));
      this.logger?.info('document converted to PDF', { durationMs: Date.now() - started, pages });
      return pages === undefined ? { pdfPath } : { pdfPath, pages };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
}

let shared: DocConverter | undefined;

/** convertDocxToPdf on a process-wide DocConverter with default options (one soffice at a time). */
export function convertDocxToPdf(inputPath: string, options: ConvertOptions = {}): Promise<ConvertResult> {
  shared ??= new DocConverter();
  return shared.convertDocxToPdf(inputPath, options);
}
