import type { Request, Response } from 'express';
import { type AppError, errorMessage, isAppError, type Logger } from '@docflow/service-kit';
import { randomUUID } from 'node:crypto';

/** A comment line this often keeps proxies from closing a stream while the model answers. */
export const CHAT_STREAM_HEARTBEAT_MS = 10_000;
/** Characters of the answer per `delta` event. */
export const CHAT_STREAM_CHUNK_CHARS = 48;

/**
 * Whether a chat call asks for server-sent events (issue 18 item 8; the
 * spec names no form): `Accept: text/event-stream`, or `?stream=true`
 * (or `1`) for clients that cannot set headers. Otherwise the spec's JSON.
 */
export function wantsEventStream(req: Request): boolean {
  const stream = req.query['stream'];
  if (stream === 'true' || stream === '1') return true;
  return (req.header('accept') ?? '').toLowerCase().includes('text/event-stream');
}

function frame(event: string, data: unknown, id: number): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The answer in pieces that end on a word boundary where one is near. */
export function answerChunks(answer: string, size = CHAT_STREAM_CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let rest = answer;
  while (rest.length > size) {
    const space = rest.lastIndexOf(' ', size - 1);
    const cut = space > size / 2 ? space + 1 : size;
    chunks.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0) chunks.push(rest);
  return chunks;
}

function errorBody(err: unknown, logger: Logger): { error: { status: number; name: string; message: string; details: Record<string, unknown> } } {
  if (isAppError(err)) {
    const e: AppError = err;
    return { error: { status: e.status, name: e.name, message: e.message, details: e.details } };
  }
  const errorId = randomUUID();
  logger.error('unexpected error in a chat stream', { errorId, error: errorMessage(err), stack: err instanceof Error ? err.stack : undefined });
  return { error: { status: 500, name: 'InternalServerError', message: 'An unexpected error occurred', details: { errorId } } };
}

/**
 * A chat answer as server-sent events. `run` does the checks (key, origin,
 * rate) and then calls `accepted()` before the model call: until then a
 * refusal is the usual JSON error with its status; from then on the
 * response is `text/event-stream`: `start` (`{session_id}` when known),
 * keep-alive comments while the model answers, the answer as `delta`
 * events (`{text}`), and `done` with the whole JSON body the non-streamed
 * call returns. A failure after `start` is an `error` event carrying the
 * spec's error body. The LLM service answers whole (4.16 has no streaming
 * form), so the deltas follow the answer rather than the model's tokens.
 */
export async function streamChat<T extends { answer: string; session_id?: string }>(
  res: Response,
  logger: Logger,
  run: (accepted: (start?: { session_id?: string }) => void) => Promise<T>,
  heartbeatMs = CHAT_STREAM_HEARTBEAT_MS,
): Promise<void> {
  let seq = 0;
  let heartbeat: NodeJS.Timeout | undefined;
  const write = (text: string) => {
    if (!res.writableEnded && !res.destroyed) res.write(text);
  };
  const accepted = (start: { session_id?: string } = {}) => {
    if (res.headersSent) return;
    res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    write(frame('start', start, ++seq));
    heartbeat = setInterval(() => write(': keep-alive\n\n'), heartbeatMs);
    res.on('close', () => clearInterval(heartbeat));
  };
  try {
    const result = await run(accepted);
    accepted(result.session_id !== undefined ? { session_id: result.session_id } : {});
    clearInterval(heartbeat);
    write(
      answerChunks(result.answer)
        .map((text) => frame('delta', { text }, ++seq))
        .join(''),
    );
    write(frame('done', result, ++seq));
    res.end();
  } catch (err) {
    clearInterval(heartbeat);
    if (!res.headersSent) throw err;
    write(frame('error', errorBody(err, logger), ++seq));
    res.end();
  }
}
