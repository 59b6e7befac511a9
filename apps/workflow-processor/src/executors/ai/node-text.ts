import { NodeFailure, type NodeContext } from '../executor';
import type { AiExecutorDeps } from './ai-deps';
import { asNodeFailures } from './ai-failures';
import { configValue, userIdOf } from './node-config';

const TEXT_KEYS = ['text', 'text_input', 'content'] as const;
const DOCUMENT_PATH = /^\/api\/documents\/(\d+)\/(?:download|signed-download)\/?$/;

/** The text a node works on, and where it came from. */
export interface NodeText {
  text: string;
  title: string | null;
  documentId: number | null;
}

type Source = { kind: 'text'; text: string } | { kind: 'document'; documentId: number; via: string };

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() ? value : undefined;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return undefined;
}

function documentIdOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * The document id of a Docflow document URL (`{origin}/api/documents/{id}/download`
 * or `/signed-download`, on one of `origins`, or a bare path). A foreign URL
 * is a configuration error: this processor does not fetch arbitrary URLs.
 */
export function documentIdFromUrl(fileUrl: string, origins: readonly string[]): number {
  let url: URL;
  try {
    url = new URL(fileUrl, 'http://docflow.invalid');
  } catch {
    throw new NodeFailure('configuration_error', `file_url is not a URL: ${fileUrl}`);
  }
  const relative = url.origin === 'http://docflow.invalid' && fileUrl.startsWith('/');
  const known = origins.some((o) => {
    try {
      return new URL(o).origin === url.origin;
    } catch {
      return false;
    }
  });
  const match = DOCUMENT_PATH.exec(url.pathname);
  if ((relative || known) && match) return Number(match[1]);
  if ((relative || known) && /^\/api\/documents\/global\/download\//.test(url.pathname)) {
    throw new NodeFailure('configuration_error', `file_url ${fileUrl} is a global download link; give the document_id instead`);
  }
  throw new NodeFailure('configuration_error', `file_url ${fileUrl} is not a Docflow document URL; AI tasks read only Docflow documents (upload the file, or pass document_id or text)`);
}

function textSourceIn(get: (key: string) => unknown): Source | undefined {
  for (const key of TEXT_KEYS) {
    const text = textOf(get(key));
    if (text !== undefined) return { kind: 'text', text };
  }
  return undefined;
}

function documentSourceIn(get: (key: string) => unknown, origins: readonly string[]): Source | undefined {
  const id = documentIdOf(get('document_id'));
  if (id !== undefined) return { kind: 'document', documentId: id, via: 'document_id' };
  const url = get('file_url');
  if (typeof url === 'string' && url.trim()) return { kind: 'document', documentId: documentIdFromUrl(url.trim(), origins), via: 'file_url' };
  return undefined;
}

/** A `document_id` or Docflow `file_url`, from the node config first, then the run inputs. */
export function findDocumentSource(ctx: NodeContext, deps: Pick<AiExecutorDeps, 'documentOrigins'>): Source | undefined {
  return documentSourceIn((k) => configValue(ctx, k), deps.documentOrigins) ?? documentSourceIn((k) => ctx.inputs[k], deps.documentOrigins);
}

/** Text given as `text`, `text_input` or `content`, from the node config first, then the run inputs. */
export function findGivenText(ctx: NodeContext): string | undefined {
  const source = textSourceIn((k) => configValue(ctx, k)) ?? textSourceIn((k) => ctx.inputs[k]);
  return source?.kind === 'text' ? source.text : undefined;
}

/**
 * Where a node's text comes from: `text`, `text_input` or `content`, else a
 * `document_id` or a Docflow `file_url`, looked up in the node config first,
 * then in the run inputs. Undefined when neither names any.
 */
export function findTextSource(ctx: NodeContext, deps: Pick<AiExecutorDeps, 'documentOrigins'>): Source | undefined {
  const get = (k: string) => configValue(ctx, k);
  const input = (k: string) => ctx.inputs[k];
  return textSourceIn(get) ?? documentSourceIn(get, deps.documentOrigins) ?? textSourceIn(input) ?? documentSourceIn(input, deps.documentOrigins);
}

/** Reads the text of a source (a document's through the public API, for the run's user). */
export async function readSource(ctx: NodeContext, deps: AiExecutorDeps, source: Source): Promise<NodeText> {
  if (source.kind === 'text') return { text: source.text, title: null, documentId: null };
  const userId = userIdOf(ctx);
  if (userId === undefined) throw new NodeFailure('configuration_error', `Cannot read document ${source.documentId}: the run has no user`);
  const doc = await asNodeFailures(() => deps.content.documentText(source.documentId, { userId, signal: ctx.signal }));
  return { text: doc.text, title: doc.title, documentId: doc.document_id };
}

/** The node's text; a configuration error when none is given, a validation error when it is empty. */
export async function requireNodeText(ctx: NodeContext, deps: AiExecutorDeps): Promise<NodeText> {
  const source = findTextSource(ctx, deps);
  if (!source) {
    throw new NodeFailure('configuration_error', `${ctx.taskType} needs text: set text, text_input or content, or document_id or a Docflow file_url, in the node config or the run inputs`);
  }
  const read = await readSource(ctx, deps, source);
  if (!read.text.trim()) {
    throw new NodeFailure('validation_error', read.documentId !== null ? `Document ${read.documentId} has no text to work on` : `${ctx.taskType} was given empty text`);
  }
  return read;
}
