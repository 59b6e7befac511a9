import { isTerminalExecutionStatus } from './execution-status';
import type { ExecutionStatusRow } from './workflow-executions.repository';

/**
 * The channel the `workflow_executions_changed` trigger notifies with an
 * execution id, followed, when the change left the execution terminal, by a
 * space and its status columns as JSON (migration 1790000000560).
 */
export const EXECUTION_CHANGED_CHANNEL = 'docflow_execution_changed';

/** While no LISTEN is in effect, waiters re-read at this interval instead of being woken. */
const FALLBACK_POLL_MS = 1000;

/**
 * The longest a long poll of an execution started here waits without having
 * read its row ({@link ExecutionWatch.startedHere}): a change whose
 * announcement never came (its announcer died between commit and NOTIFY, a
 * row deleted) is read this late at most, as while no LISTEN is in effect.
 */
export const UNREAD_WAIT_MAX_MS = FALLBACK_POLL_MS;
/** Starts remembered at most (the oldest is forgotten first), and for how long. */
const STARTS_KEPT = 5000;
const START_KEPT_MS = 5 * 60_000;

/** A start this process sent: what was heard of its execution since the statement went out. */
interface StartEntry {
  /** The listener's epoch when the start statement was sent. */
  epoch: number;
  /** The owner, once the start committed; undefined while the statement is out. */
  userId?: number;
  at: number;
  /** Notifications heard without a terminal payload (the start's own announcement is one). */
  plain: number;
  /** A terminal notification's JSON (parsed when a poll asks). */
  terminal?: string;
}

/** What a long poll may take from {@link ExecutionWatch.startedHere} instead of reading the row. */
export type StartedHere = { terminal: ExecutionStatusRow } | { quiet: true };

/**
 * Wakes long polls and event streams when an execution changes. Fed by a
 * LISTEN on {@link EXECUTION_CHANGED_CHANNEL} (server.ts), so a change
 * committed by any process wakes the waiters of every process. While the
 * listener is down (or in a process that has none) a wait lasts at most
 * {@link FALLBACK_POLL_MS}, so callers re-read and never miss a change.
 */
export class ExecutionWatch {
  private readonly waiters = new Map<number, Set<(terminal?: ExecutionStatusRow) => void>>();
  private live = false;
  /** Moves on every change of the listener's state: a start recorded in one epoch is trusted only in the same one. */
  private epoch = 0;
  private readonly starts = new Map<number, StartEntry>();

  /**
   * Resolves when execution `id` changes, after `timeoutMs`, or when `signal`
   * aborts, whichever comes first: with the execution's final status columns
   * when the change that woke it made it terminal and said so, otherwise
   * with nothing (the caller reads the row).
   */
  changed(id: number, timeoutMs: number, signal?: AbortSignal): Promise<ExecutionStatusRow | undefined> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve(undefined);
      let set = this.waiters.get(id);
      if (!set) this.waiters.set(id, (set = new Set()));
      const own = set;
      const done = (terminal?: ExecutionStatusRow) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        own.delete(done);
        if (own.size === 0 && this.waiters.get(id) === own) this.waiters.delete(id);
        resolve(terminal);
      };
      const aborted = () => done();
      const timer = setTimeout(aborted, this.live ? timeoutMs : Math.min(timeoutMs, FALLBACK_POLL_MS));
      signal?.addEventListener('abort', aborted, { once: true });
      own.add(done);
    });
  }

  /** A notification's payload: the execution id, then, for a terminal change, a space and its status columns (parsed only when someone waits). */
  onNotification(payload: string): void {
    const space = payload.indexOf(' ');
    const id = Number(space < 0 ? payload : payload.slice(0, space));
    const start = this.starts.get(id);
    if (start) {
      if (space < 0) start.plain += 1;
      else start.terminal = payload.slice(space + 1);
    }
    const set = Number.isSafeInteger(id) ? this.waiters.get(id) : undefined;
    if (!set) return;
    const terminal = space < 0 ? undefined : terminalRowOf(id, payload.slice(space + 1));
    for (const wake of [...set]) wake(terminal);
  }

  /**
   * Payloads of changes this process committed, told as soon as their commit was answered (before their NOTIFY is
   * sent and comes back through LISTEN). Only terminal ones wake: their waiters answer from the payload and leave, so
   * the NOTIFY that follows finds no one to wake twice; waking on any other change would only cost a re-read now and
   * another when the NOTIFY arrives.
   */
  onCommittedHere(payloads: readonly string[]): void {
    // Starts of this process remember a terminal payload too, so that their owner's poll coming next answers from it.
    if (this.waiters.size === 0 && this.starts.size === 0) return;
    for (const payload of payloads) if (payload.indexOf(' ') > 0) this.onNotification(payload);
  }

  /** Losing the listener wakes everyone: what changed meanwhile was not announced. */
  setLive(live: boolean): void {
    this.live = live;
    this.epoch += 1;
    if (!live) for (const set of [...this.waiters.values()]) for (const wake of [...set]) wake(undefined);
  }

  /**
   * Called just before this process sends the statement that starts
   * execution `id`: from now on every notification of `id` is counted.
   * Returns the ticket to confirm or drop; undefined while no LISTEN holds.
   */
  expectStart(id: number): object | undefined {
    if (!this.live) return undefined;
    const entry: StartEntry = { epoch: this.epoch, at: Date.now(), plain: 0 };
    this.starts.delete(id);
    this.starts.set(id, entry);
    while (this.starts.size > STARTS_KEPT) this.starts.delete(this.starts.keys().next().value as number);
    return entry;
  }

  /** The start of `ticket` committed, for owner `userId` (the execution is `running` as of its commit). */
  confirmStart(id: number, ticket: object | undefined, userId: number): void {
    const entry = this.starts.get(id);
    if (entry !== undefined && entry === ticket) entry.userId = userId;
  }

  /** The start did not happen, or was put back: nothing is remembered of `id` any more. */
  forgetStart(id: number, ticket?: object): void {
    if (ticket === undefined || this.starts.get(id) === ticket) this.starts.delete(id);
  }

  /**
   * What a long poll by `userId` of execution `id` may take instead of
   * reading its row: only for an execution this process started for that
   * owner, with the LISTEN up without a break since before the start's
   * statement went out (so every change committed after the start was
   * delivered here or is on its way). Then either its terminal columns (a
   * terminal notification heard: final), or `quiet`: nothing heard since the
   * start but at most its own announcement, so the execution is `running`
   * unless a change is still on its way (which wakes the waiter) or was never
   * announced (hence {@link UNREAD_WAIT_MAX_MS}). Anything else: undefined,
   * and the caller reads the row as before.
   */
  startedHere(id: number, userId: number): StartedHere | undefined {
    const entry = this.starts.get(id);
    if (!entry || entry.userId !== userId || !this.live || entry.epoch !== this.epoch) return undefined;
    if (Date.now() - entry.at > START_KEPT_MS) {
      this.starts.delete(id);
      return undefined;
    }
    if (entry.terminal !== undefined) {
      const terminal = terminalRowOf(id, entry.terminal);
      return terminal && terminal.userId === userId ? { terminal } : undefined;
    }
    return entry.plain <= 1 ? { quiet: true } : undefined;
  }

  /** Waiters at this moment (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }
}

const millis = (v: unknown): Date | null => (typeof v === 'number' ? new Date(v) : null);
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The status columns a terminal change's notification carries, as findStatus
 * reads them (times are epoch milliseconds in the payload); undefined when
 * the JSON is not that of a terminal execution `id`, and the waiter reads.
 */
export function terminalRowOf(id: number, json: string): ExecutionStatusRow | undefined {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== 'object' || v['id'] !== id || typeof v['userId'] !== 'number' || typeof v['status'] !== 'string') return undefined;
  if (!isTerminalExecutionStatus(v['status'] as ExecutionStatusRow['status'])) return undefined;
  return {
    id,
    userId: v['userId'],
    status: v['status'] as ExecutionStatusRow['status'],
    taskStates: (v['taskStates'] ?? null) as ExecutionStatusRow['taskStates'],
    outputs: (v['outputs'] ?? null) as ExecutionStatusRow['outputs'],
    awaitingNode: text(v['awaitingNode']),
    awaitingInputSchema: (v['awaitingInputSchema'] ?? null) as ExecutionStatusRow['awaitingInputSchema'],
    awaitingSince: millis(v['awaitingSince']),
    startedAt: millis(v['startedAt']),
    completedAt: millis(v['completedAt']),
    error: text(v['error']),
    errorType: text(v['errorType']),
    failedNode: text(v['failedNode']),
    // Only a pause for input has a token, and a pause is never announced with its columns.
    correlationTokenSealed: null,
  };
}
