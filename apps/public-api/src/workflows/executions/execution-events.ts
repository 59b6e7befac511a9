import type { Response } from 'express';
import { errorMessage } from '@docflow/service-kit';
import { isTerminalExecutionStatus } from './execution-status';
import type { ExecutionStatusView } from './execution-views';
import type { ExecutionWatch } from './execution-watch';
import type { ExecutionReader, WorkflowExecutionsService } from './workflow-executions.service';

/** A comment line at least this often keeps proxies from closing an idle stream. */
export const EVENT_STREAM_HEARTBEAT_MS = 15_000;
/** A stream ends after this long; EventSource clients reconnect by themselves. */
export const EVENT_STREAM_MAX_MS = 15 * 60_000;

export interface ExecutionEventsDeps {
  executions: Pick<WorkflowExecutionsService, 'status'>;
  watch: ExecutionWatch;
  reader: ExecutionReader;
  id: number;
  heartbeatMs?: number;
  maxMs?: number;
}

function frame(event: string, data: unknown, seq: number): string {
  return `id: ${seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The frames that take a client from `before` (nothing yet) to `now`: a `task` per changed task state, then `status` if anything changed. */
export function changeFrames(before: ExecutionStatusView | undefined, now: ExecutionStatusView): Array<{ event: 'task' | 'status'; data: unknown }> {
  const frames: Array<{ event: 'task' | 'status'; data: unknown }> = [];
  for (const [nodeId, state] of Object.entries(now.task_states ?? {})) {
    if (before && JSON.stringify(before.task_states?.[nodeId]) === JSON.stringify(state)) continue;
    frames.push({ event: 'task', data: { execution_id: now.id, node_id: nodeId, state } });
  }
  if (!before || frames.length > 0 || JSON.stringify(before) !== JSON.stringify(now)) frames.push({ event: 'status', data: now });
  return frames;
}

/**
 * GET /workflow-executions/{id}/events (issue #16 item 4): server-sent
 * events. The first frames give the current status and every task state;
 * after that, each change of the execution (woken by its NOTIFY) sends the
 * task states that changed and the new status. The stream ends after the
 * terminal status. Reading rights and 404 are those of the status route,
 * answered as JSON before the stream starts.
 */
export async function streamExecutionEvents(res: Response, deps: ExecutionEventsDeps): Promise<void> {
  const heartbeatMs = deps.heartbeatMs ?? EVENT_STREAM_HEARTBEAT_MS;
  const deadline = Date.now() + (deps.maxMs ?? EVENT_STREAM_MAX_MS);
  const left = new AbortController();
  res.on('close', () => left.abort());
  let last: ExecutionStatusView | undefined;
  let seq = 0;
  let lastWrite = Date.now();
  while (!left.signal.aborted) {
    const stop = new AbortController();
    const relay = () => stop.abort();
    left.signal.addEventListener('abort', relay, { once: true });
    const woken = deps.watch.changed(deps.id, Math.max(0, Math.min(heartbeatMs, deadline - Date.now())), stop.signal);
    try {
      let view: ExecutionStatusView;
      try {
        view = await deps.executions.status(deps.reader, deps.id);
      } catch (err) {
        if (!res.headersSent) throw err;
        res.end(frame('error', { message: errorMessage(err) }, ++seq));
        return;
      }
      if (!res.headersSent) {
        res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
        res.flushHeaders();
      }
      const frames = changeFrames(last, view);
      if (frames.length > 0) {
        res.write(frames.map((f) => frame(f.event, f.data, ++seq)).join(''));
        lastWrite = Date.now();
      }
      last = view;
      if (isTerminalExecutionStatus(view.status) || Date.now() >= deadline) break;
      await woken;
      if (Date.now() - lastWrite >= heartbeatMs && !left.signal.aborted) {
        res.write(': keep-alive\n\n');
        lastWrite = Date.now();
      }
    } finally {
      stop.abort();
      left.signal.removeEventListener('abort', relay);
    }
  }
  if (!left.signal.aborted) res.end();
}
