import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type NetworkIsolation, resolveExecutable, sandboxed, type SandboxLimits } from '@docflow/sandbox';
import { ExtractionTimeoutError, ExtractorUnavailableError, TextExtractionError } from './errors';

export interface OcrOptions {
  tesseractPath: string;
  language: string;
  timeoutMs: number;
  /** Stop reading (and mark truncated) past this many bytes of output. */
  maxOutputBytes: number;
  /** Overrides of the sandbox's limits (defaults: CPU = timeout + 5 s, 1 GiB address space, 16 MiB files). */
  sandboxLimits?: Partial<SandboxLimits>;
  /** Default: what the host allows. tesseract reads only stdin, so without a namespace nothing more is refused. */
  network?: NetworkIsolation;
}

export interface OcrResult {
  text: string;
  truncated: boolean;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * `tesseract stdin stdout -l <lang>`: the image goes in on stdin (no temp
 * file), the text comes back on stdout. Runs sandboxed (libs/sandbox: none of
 * this process's environment, a private empty home, no network where the host
 * allows a namespace, CPU, memory and file-size limits) in its own process
 * group, killed on timeout; OpenMP is held to one thread so that OCR does not
 * take every core.
 */
export async function ocrImage(image: Buffer, options: OcrOptions): Promise<OcrResult> {
  if (!/^[A-Za-z0-9_+]{1,64}$/.test(options.language)) throw new RangeError(`bad OCR language "${options.language}"`);
  const tesseract = resolveExecutable(options.tesseractPath);
  if (tesseract === undefined) throw new ExtractorUnavailableError(`${options.tesseractPath} is not installed (run scripts/install-system-deps.sh)`);
  const home = mkdtempSync(path.join(os.tmpdir(), 'docflow-ocr-'));
  try {
    return await runTesseract(image, tesseract, home, options);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function runTesseract(image: Buffer, tesseract: string, home: string, options: OcrOptions): Promise<OcrResult> {
  const sandbox = sandboxed({
    command: tesseract,
    args: ['stdin', 'stdout', '-l', options.language],
    home,
    env: { OMP_THREAD_LIMIT: '1', ...(process.env.TESSDATA_PREFIX ? { TESSDATA_PREFIX: process.env.TESSDATA_PREFIX } : {}) },
    ...(options.network ? { network: options.network } : {}),
    limits: { cpuSeconds: Math.ceil(options.timeoutMs / 1000) + 5, addressSpaceBytes: 1024 * 1024 * 1024, fileSizeBytes: 16 * 1024 * 1024, ...options.sandboxLimits },
  });
  return new Promise<OcrResult>((resolve, reject) => {
    const child = spawn(sandbox.command, sandbox.args, { cwd: home, detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: sandbox.env });
    const out: Buffer[] = [];
    let outBytes = 0;
    let truncated = false;
    let errTail = '';
    let timedOut = false;
    let settled = false;

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };

    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      const room = options.maxOutputBytes - outBytes;
      if (chunk.length > room) {
        out.push(chunk.subarray(0, room));
        outBytes += room;
        truncated = true;
        killGroup(child.pid);
        return;
      }
      out.push(chunk);
      outBytes += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errTail = (errTail + chunk.toString('utf8')).slice(-2000);
    });
    // tesseract may exit (bad image) before reading all of stdin.
    child.stdin.on('error', () => undefined);
    child.stdin.end(image);

    child.once('error', (err: NodeJS.ErrnoException) =>
      settle(() => {
        killGroup(child.pid);
        reject(err.code === 'ENOENT' ? new ExtractorUnavailableError(`${options.tesseractPath} is not installed (run scripts/install-system-deps.sh)`) : err);
      }),
    );
    child.once('close', (code) =>
      settle(() => {
        if (timedOut) return reject(new ExtractionTimeoutError(options.timeoutMs));
        // A decoder cut short by a partial UTF-8 sequence loses at most one character.
        const text = Buffer.concat(out).toString('utf8');
        if (truncated) return resolve({ text, truncated: true });
        if (code !== 0) return reject(new TextExtractionError('The image could not be read', errTail.trim()));
        resolve({ text, truncated: false });
      }),
    );
  });
}
