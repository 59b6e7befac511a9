import { performance } from 'node:perf_hooks';
import { createOutboundClient, isOutboundRequestError, type OutboundClient } from '@docflow/outbound-http';
import { AppError, errorMessage } from '@docflow/service-kit';
import { ACCEPTED_MIME_TYPES, extractText, normaliseMimeType, sniffMime } from '@docflow/text-extraction';
import type { ChatMessage, NativeFile, ProviderName } from '../providers/provider';

/** A `file_urls` entry (spec 4.11, 4.16). */
export interface FileInput {
  url: string;
  mime_type?: string;
  name?: string;
}

/** What providers take natively (issue 19, item 1): OpenAI-compatible image parts; Anthropic image and PDF document blocks. */
const NATIVE: Readonly<Record<ProviderName, ReadonlySet<string>>> = {
  openai: new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
  anthropic: new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'application/pdf']),
  local: new Set(),
};

export interface ResolvedFiles {
  /** Each file's extracted text, as one block for the prompt ('' when every file goes natively). */
  text: string;
  native: NativeFile[];
  /** For the response and the bench: how many files, bytes fetched, characters added, time spent. */
  stats: { files: number; bytes: number; chars: number; native: number; ms: number };
}

export interface FileResolverOptions {
  /** PUBLIC_BASE_URL: its `/api/documents/{id}/signed-download` URLs are the platform's own and may be fetched on a private address. */
  publicBaseUrl: string;
  /** REST_API_ALLOWED_HOSTS. */
  allowedHosts: readonly string[];
  maxBytes: number;
  maxChars: number;
  timeoutMs?: number;
}

function fileError(status: 400 | 422, message: string, details: Record<string, unknown>, name: string): AppError {
  return new AppError(status, status === 400 ? 'BadRequestError' : 'UnprocessableEntityError', message, details, name);
}

/**
 * Fetches `file_urls` through the SSRF-safe outbound client and turns them into what the provider reads:
 * native parts where the provider takes that type and the call is not shielded, else text (PDF, DOCX,
 * spreadsheets, text; images and scanned PDFs by OCR) through libs/text-extraction.
 */
export class FileResolver {
  private readonly general: OutboundClient;
  private readonly own: OutboundClient;
  private readonly ownOrigin: string;

  constructor(private readonly options: FileResolverOptions) {
    const base = new URL(options.publicBaseUrl);
    this.ownOrigin = base.origin;
    const common = { maxResponseBytes: options.maxBytes, defaultTimeoutMs: options.timeoutMs ?? 30_000, userAgent: 'Docflow-LLM-Files/1.0' };
    this.general = createOutboundClient({ ...common, allowedHosts: options.allowedHosts });
    // The platform's own signed URLs: its host allowed, and no redirect followed away from it.
    this.own = createOutboundClient({
      ...common,
      allowedHosts: [...options.allowedHosts, base.host.includes(':') ? base.host : `${base.hostname}:${base.protocol === 'https:' ? 443 : 80}`],
      maxRedirects: 1,
    });
  }

  private clientFor(url: URL): OutboundClient {
    return url.origin === this.ownOrigin && /^\/api\/documents\/\d+\/signed-download$/.test(url.pathname) ? this.own : this.general;
  }

  async resolve(files: readonly FileInput[], target: { provider: ProviderName; shielded: boolean }): Promise<ResolvedFiles> {
    const started = performance.now();
    const native: NativeFile[] = [];
    const texts: string[] = [];
    let bytes = 0;
    let chars = 0;
    for (const [i, f] of files.entries()) {
      let url: URL;
      try {
        url = new URL(f.url);
      } catch {
        throw fileError(400, `file_urls[${i}]: not a URL`, { errors: [`file_urls[${i}].url: must be an absolute http(s) URL`] }, 'validation_error');
      }
      let body: Buffer;
      let declared: string | undefined;
      try {
        const res = await this.clientFor(url).request({ url: url.href, headers: { accept: '*/*' } });
        body = res.bytes ?? Buffer.from(res.text);
        declared = res.headers['content-type'];
      } catch (err) {
        if (isOutboundRequestError(err)) {
          const status = err.kind === 'configuration' ? 400 : 422;
          throw fileError(status, `file_urls[${i}] could not be fetched: ${err.message}`, { file: i, reason: err.kind }, status === 400 ? 'file_url_forbidden' : 'file_url_unreadable');
        }
        throw err;
      }
      bytes += body.length;
      // The bytes say what the file is; the declared type only when they cannot (plain text, CSV, JSON).
      const sniffed = await sniffMime(body, f.name).catch(() => undefined);
      const mime = sniffed?.mime ?? normaliseMimeType(f.mime_type ?? '') ?? normaliseMimeType(declared ?? '');
      if (mime === undefined) {
        throw fileError(422, `file_urls[${i}]: files of type ${f.mime_type ?? declared ?? 'unknown'} are not read`, { file: i, accepted: [...ACCEPTED_MIME_TYPES] }, 'file_type_unsupported');
      }
      const name = f.name ?? (decodeURIComponent(url.pathname.split('/').pop() ?? '') || `file ${i + 1}`);
      if (NATIVE[target.provider].has(mime)) {
        // A shielded call cannot send a file Data Shield cannot read (spec 4.17 rule 8): only text is shielded.
        if (target.shielded && mime.startsWith('image/')) {
          throw fileError(400, 'Data Shield cannot shield an image: send the text instead', { errors: [`file_urls[${i}]: an image cannot be sent with data_shield.enabled`] }, 'validation_error');
        }
        if (!target.shielded) {
          native.push({ mime, base64: body.toString('base64'), name });
          continue;
        }
      }
      let text: string;
      try {
        const extracted = await extractText(body, mime, { maxBytes: this.options.maxBytes, maxChars: this.options.maxChars, timeoutMs: 60_000 });
        text = extracted.text + (extracted.truncated ? '\n[… the rest of the file was cut]' : '');
      } catch (err) {
        throw fileError(422, `file_urls[${i}]: its text could not be read (${errorMessage(err)})`, { file: i, mime }, 'file_unreadable');
      }
      chars += text.length;
      texts.push(`--- Attached file ${i + 1}: ${name} (${mime}) ---\n${text}\n--- End of ${name} ---`);
    }
    return { text: texts.join('\n\n'), native, stats: { files: files.length, bytes, chars, native: native.length, ms: Math.round(performance.now() - started) } };
  }
}

/** The conversation with the files added to its last user message (text appended, native parts attached). */
export function withFiles(messages: ChatMessage[], files: ResolvedFiles): ChatMessage[] {
  if (files.text === '' && files.native.length === 0) return messages;
  const out = [...messages];
  const at = out.map((m) => m.role).lastIndexOf('user');
  const base: ChatMessage = at >= 0 ? out[at]! : { role: 'user', content: '' };
  const merged: ChatMessage = {
    ...base,
    content: files.text === '' ? base.content : `${base.content}\n\n${files.text}`.trim(),
    ...(files.native.length > 0 ? { files: [...(base.files ?? []), ...files.native] } : {}),
  };
  if (at >= 0) out[at] = merged;
  else out.push(merged);
  return out;
}
