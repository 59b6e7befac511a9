import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ExtractionTimeoutError, TextExtractionError } from './errors';

/**
 * PDF and DOCX parsing runs in a worker thread: it is CPU-bound and works on
 * untrusted input, so it gets its own heap cap and a wall-clock timeout
 * (worker.terminate()), and never blocks the caller's event loop. The worker
 * is plain JavaScript evaluated from a string, loading unpdf and mammoth by
 * absolute path with Node's own loader: that works the same under jest (which
 * cannot load unpdf's ESM PDF.js build in its CommonJS runtime) and in the
 * esbuild bundles (where node_modules stay external).
 */

export type ParseJob = { kind: 'pdf'; data: Uint8Array; maxPages: number; maxChars: number } | { kind: 'docx'; data: Uint8Array };

export type ParseResult = { kind: 'pdf'; pages: string[]; totalPages: number } | { kind: 'docx'; text: string; splitOnPageBreaks: boolean };

export interface ParseLimits {
  timeoutMs: number;
  memoryMb: number;
}

interface ModulePaths {
  unpdfUrl: string;
  mammothMain: string;
  mammothUnzip: string;
  mammothDocxReader: string;
  mammothRawText: string;
}

let modulePaths: ModulePaths | undefined;

function resolveModules(): ModulePaths {
  if (!modulePaths) {
    const unpdfDir = path.dirname(require.resolve('unpdf'));
    const mammothMain = require.resolve('mammoth');
    const mammothLib = path.dirname(mammothMain);
    modulePaths = {
      unpdfUrl: pathToFileURL(path.join(unpdfDir, 'index.mjs')).href,
      mammothMain,
      mammothUnzip: path.join(mammothLib, 'unzip.js'),
      mammothDocxReader: path.join(mammothLib, 'docx', 'docx-reader.js'),
      mammothRawText: path.join(mammothLib, 'raw-text.js'),
    };
  }
  return modulePaths;
}

const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { job, modules } = workerData;

async function parsePdf() {
  const { getDocumentProxy } = await import(modules.unpdfUrl);
  const doc = await getDocumentProxy(job.data, { verbosity: 0, isEvalSupported: false });
  try {
    const pages = [];
    let chars = 0;
    const last = Math.min(doc.numPages, job.maxPages);
    for (let n = 1; n <= last && chars < job.maxChars; n += 1) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (typeof item.str === 'string') text += item.str + (item.hasEOL ? '\n' : '');
      }
      page.cleanup();
      pages.push(text);
      chars += text.length;
    }
    return { kind: 'pdf', pages, totalPages: doc.numPages };
  } finally {
    await doc.destroy();
  }
}

// Page breaks become form feeds and line breaks newlines; mammoth's own
// extractRawText drops both. It uses mammoth's internal reader; should that
// ever change shape, the public extractRawText is used and pages stay unknown.
function markBreaks(element) {
  if (element.type === 'break') {
    if (element.breakType === 'page') return { type: 'text', value: '\f' };
    if (element.breakType === 'line') return { type: 'text', value: '\n' };
    return element;
  }
  if (Array.isArray(element.children)) return Object.assign({}, element, { children: element.children.map(markBreaks) });
  return element;
}

function loadInternals() {
  try {
    const unzip = require(modules.mammothUnzip);
    const reader = require(modules.mammothDocxReader);
    const rawText = require(modules.mammothRawText);
    if (typeof unzip.openZip === 'function' && typeof reader.read === 'function' && typeof rawText.convertElementToRawText === 'function') {
      return { unzip, reader, rawText };
    }
  } catch (err) {
    // fall through
  }
  return undefined;
}

async function parseDocx() {
  const buffer = Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength);
  const internals = loadInternals();
  if (internals) {
    const zip = await internals.unzip.openZip({ buffer });
    const result = await internals.reader.read(zip);
    return { kind: 'docx', text: internals.rawText.convertElementToRawText(markBreaks(result.value)), splitOnPageBreaks: true };
  }
  const mammoth = require(modules.mammothMain);
  const result = await mammoth.extractRawText({ buffer });
  return { kind: 'docx', text: result.value, splitOnPageBreaks: false };
}

(job.kind === 'pdf' ? parsePdf() : parseDocx()).then(
  (result) => parentPort.postMessage({ ok: true, result }),
  (err) => parentPort.postMessage({ ok: false, message: String((err && err.message) || err) }),
);
`;

type WorkerReply = { ok: true; result: ParseResult } | { ok: false; message: string };

export function parseInWorker(job: ParseJob, limits: ParseLimits): Promise<ParseResult> {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { job, modules: resolveModules() },
    resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
    stdout: true,
    stderr: true,
  });
  // Whatever the parser prints (PDF.js warnings) is dropped.
  worker.stdout.resume();
  worker.stderr.resume();
  const label = job.kind === 'pdf' ? 'PDF' : 'Word document';
  return new Promise<ParseResult>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => reject(new ExtractionTimeoutError(limits.timeoutMs))), limits.timeoutMs);
    worker.once('message', (reply: WorkerReply) => settle(() => (reply.ok ? resolve(reply.result) : reject(new TextExtractionError(`The ${label} could not be read`, reply.message)))));
    worker.once('error', (err: Error & { code?: string }) =>
      settle(() =>
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new TextExtractionError(`The ${label} needs more memory than allowed to read`, err.message)
            : new TextExtractionError(`The ${label} could not be read`, err.message),
        ),
      ),
    );
    worker.once('exit', (code) => settle(() => reject(new TextExtractionError(`The ${label} could not be read`, `parser exited with ${code}`))));
  });
}
