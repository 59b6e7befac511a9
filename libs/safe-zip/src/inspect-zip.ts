import { Worker } from 'node:worker_threads';

/**
 * Reads an untrusted zip archive (DOCX, XLSX) with yauzl in a worker thread,
 * inflating every entry and counting the bytes as they come out: the sizes an
 * archive declares are never trusted (issue #13, zip bombs). Inflating stops
 * at the first limit passed, and the caller's event loop only waits.
 */

export interface ZipLimits {
  /** Entries the archive may hold. */
  maxEntries: number;
  /** Bytes all entries may inflate to together, counted while inflating. */
  maxTotalInflatedBytes: number;
  /** Inflated/compressed bytes of one entry, judged once the entry passed ratioMinBytes. */
  maxCompressionRatio: number;
  /** Small parts (XML of a few KiB) may compress very well: the ratio is judged only above this. */
  ratioMinBytes: number;
  /** Wall-clock bound of the whole inspection; the worker is terminated past it. */
  timeoutMs: number;
}

export const DEFAULT_ZIP_LIMITS: Readonly<ZipLimits> = Object.freeze({
  maxEntries: 2000,
  maxTotalInflatedBytes: 200 * 1024 * 1024,
  maxCompressionRatio: 100,
  ratioMinBytes: 1024 * 1024,
  timeoutMs: 60_000,
});

export type ZipRefusalReason =
  | 'not_a_zip'
  | 'unsupported_zip'
  | 'too_many_entries'
  | 'unsafe_entry_name'
  | 'duplicate_entry'
  | 'encrypted_entry'
  | 'unsupported_compression'
  | 'declared_size_mismatch'
  | 'total_uncompressed_too_large'
  | 'compression_ratio_too_high'
  | 'inspection_timeout';

export interface ZipEntrySummary {
  name: string;
  compressedSize: number;
  /** Bytes the entry really inflated to. */
  inflatedSize: number;
}

export interface ZipInspection {
  ok: true;
  entries: ZipEntrySummary[];
  totalCompressedBytes: number;
  totalInflatedBytes: number;
  /** The entries asked for in `keep`, whole (each at most keepMaxBytes). */
  kept: Record<string, Buffer>;
}

export interface ZipRefusal {
  ok: false;
  reason: ZipRefusalReason;
  message: string;
}

export type ZipSource = { buffer: Uint8Array } | { path: string };

export interface InspectZipOptions {
  limits?: Partial<ZipLimits>;
  /** Entry names whose bytes to hand back (e.g. `[Content_Types].xml`). */
  keep?: string[];
  /** Also hand back entries whose name matches this regular expression (source text), e.g. `\.rels$`. */
  keepPattern?: string;
  /** Per kept entry; a larger one is not kept. Default 1 MiB. */
  keepMaxBytes?: number;
}

const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const yauzl = require(workerData.yauzlPath);
const { source, limits, keep, keepPattern, keepMaxBytes } = workerData;
const keepRe = keepPattern ? new RegExp(keepPattern) : null;
// What kept entries may hold in all; past it the archive is refused rather than judged in part.
const KEEP_TOTAL = 16 * 1024 * 1024;
let keptTotal = 0;

class Refusal extends Error {
  constructor(reason, message) { super(message); this.reason = reason; }
}

// yauzl's own messages, mapped onto the reasons callers know.
function refusalOf(err) {
  if (err instanceof Refusal) return err;
  const m = String((err && err.message) || err);
  if (/absolute path|invalid relative path|invalid characters in fileName/.test(m)) return new Refusal('unsafe_entry_name', 'an entry name is not a safe relative path');
  if (/too many bytes in the stream|not enough bytes in the stream/.test(m)) return new Refusal('declared_size_mismatch', 'an entry inflates to another size than the archive declares');
  if (/encrypted/i.test(m)) return new Refusal('encrypted_entry', 'it holds encrypted entries');
  if (/compression method/.test(m)) return new Refusal('unsupported_compression', 'an entry uses a compression method other than stored or deflate');
  if (/multi-disk/.test(m)) return new Refusal('unsupported_zip', 'multi-disk archives are not accepted');
  return new Refusal('not_a_zip', 'not a readable zip archive (' + m.slice(0, 120) + ')');
}

function open(cb) {
  const options = { lazyEntries: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: true, autoClose: true };
  if (source.path !== undefined) yauzl.open(source.path, options, cb);
  else yauzl.fromBuffer(Buffer.from(source.buffer.buffer, source.buffer.byteOffset, source.buffer.byteLength), options, cb);
}

function inspect() {
  return new Promise((resolve, reject) => {
    open((err, zip) => {
      if (err) return reject(refusalOf(err));
      if (zip.entryCount > limits.maxEntries) {
        zip.close();
        return reject(new Refusal('too_many_entries', zip.entryCount + ' entries, more than the ' + limits.maxEntries + ' allowed'));
      }
      const names = new Set();
      const entries = [];
      const kept = {};
      let totalCompressed = 0;
      let totalInflated = 0;
      let failed = false;
      const fail = (e) => {
        if (failed) return;
        failed = true;
        zip.close();
        reject(refusalOf(e));
      };
      zip.on('error', fail);
      zip.on('end', () => {
        if (!failed) resolve({ ok: true, entries, totalCompressedBytes: totalCompressed, totalInflatedBytes: totalInflated, kept });
      });
      zip.on('entry', (entry) => {
        const name = entry.fileName;
        if (name.length === 0 || name.includes('\0')) return fail(new Refusal('unsafe_entry_name', 'an entry name is not a safe relative path'));
        if (names.has(name)) return fail(new Refusal('duplicate_entry', 'entry "' + name.slice(0, 80) + '" appears twice'));
        names.add(name);
        if (entry.isEncrypted()) return fail(new Refusal('encrypted_entry', 'it holds encrypted entries'));
        if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
          return fail(new Refusal('unsupported_compression', 'compression method ' + entry.compressionMethod + ' is not accepted'));
        }
        totalCompressed += entry.compressedSize;
        if (name.endsWith('/')) {
          entries.push({ name, compressedSize: entry.compressedSize, inflatedSize: 0 });
          return zip.readEntry();
        }
        zip.openReadStream(entry, (streamErr, stream) => {
          if (streamErr) return fail(streamErr);
          let inflated = 0;
          const keepIt = keep.includes(name) || (keepRe !== null && keepRe.test(name));
          const chunks = [];
          stream.on('data', (chunk) => {
            if (failed) return;
            inflated += chunk.length;
            totalInflated += chunk.length;
            if (totalInflated > limits.maxTotalInflatedBytes) {
              stream.destroy();
              return fail(new Refusal('total_uncompressed_too_large', 'it expands to more than ' + limits.maxTotalInflatedBytes + ' bytes'));
            }
            if (inflated > limits.ratioMinBytes && inflated / Math.max(entry.compressedSize, 1) > limits.maxCompressionRatio) {
              stream.destroy();
              return fail(new Refusal('compression_ratio_too_high', 'entry "' + name.slice(0, 80) + '" expands more than ' + limits.maxCompressionRatio + ' times'));
            }
            if (keepIt && inflated <= keepMaxBytes) {
              chunks.push(chunk);
              keptTotal += chunk.length;
              if (keptTotal > KEEP_TOTAL) {
                stream.destroy();
                return fail(new Refusal('total_uncompressed_too_large', 'the parts to check hold more than ' + KEEP_TOTAL + ' bytes'));
              }
            }
          });
          stream.on('error', fail);
          stream.on('end', () => {
            if (failed) return;
            if (keepIt && inflated <= keepMaxBytes) kept[name] = Buffer.concat(chunks);
            entries.push({ name, compressedSize: entry.compressedSize, inflatedSize: inflated });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

inspect().then(
  (result) => parentPort.postMessage(result),
  (err) => {
    const r = refusalOf(err);
    parentPort.postMessage({ ok: false, reason: r.reason, message: r.message });
  },
);
`;

let yauzlPath: string | undefined;

/**
 * Inflates every entry of the archive in a worker thread, counting, and
 * answers what it holds or why it is refused. Never throws for a bad archive:
 * refusals are values, with the reasons above; the worker's death (memory) is
 * a refusal too.
 */
export function inspectZip(source: ZipSource, options: InspectZipOptions = {}): Promise<ZipInspection | ZipRefusal> {
  const limits: ZipLimits = { ...DEFAULT_ZIP_LIMITS, ...options.limits };
  yauzlPath ??= require.resolve('yauzl');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { source, limits, keep: options.keep ?? [], keepPattern: options.keepPattern, keepMaxBytes: options.keepMaxBytes ?? 1024 * 1024, yauzlPath },
    // Inflated bytes are counted and dropped; only kept entries stay in memory.
    resourceLimits: { maxOldGenerationSizeMb: 128 },
  });
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: ZipInspection | ZipRefusal): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
      void worker.terminate();
    };
    const timer = setTimeout(() => settle({ ok: false, reason: 'inspection_timeout', message: `reading the archive took longer than ${limits.timeoutMs} ms` }), limits.timeoutMs);
    worker.once('message', (reply: ZipInspection | ZipRefusal) => settle(reply.ok ? { ...reply, kept: keptBuffers(reply.kept) } : reply));
    worker.once('error', (err: Error) => settle({ ok: false, reason: 'not_a_zip', message: `the archive could not be read (${err.message})` }));
    worker.once('exit', (code) => settle({ ok: false, reason: 'not_a_zip', message: `the archive reader stopped (${code})` }));
  });
}

/** Buffers come back from the worker as Uint8Arrays. */
function keptBuffers(kept: Record<string, Uint8Array>): Record<string, Buffer> {
  return Object.fromEntries(Object.entries(kept).map(([name, bytes]) => [name, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]));
}
