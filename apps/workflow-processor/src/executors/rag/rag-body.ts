import { isPlainObject } from '@docflow/workflow';
import { NodeFailure, type NodeContext } from '../executor';

const EXACT_TEMPLATE = /^\{\{[^{}]+\}\}$/;
const MAX_ID = 2147483647;

/**
 * The request fields of a RAG node: `config.body` (spec 2.7, templated), or
 * the same fields at the top of the config. A template that resolved to
 * nothing (left as `{{x}}`) counts as absent.
 */
export function bodyOf(ctx: NodeContext): Record<string, unknown> {
  const body = ctx.config['body'];
  if (body !== undefined && !isPlainObject(body)) throw new NodeFailure('configuration_error', 'body must be an object');
  const fields = isPlainObject(body) ? body : ctx.config;
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => !(typeof v === 'string' && EXACT_TEMPLATE.test(v.trim()))));
}

function bad(name: string, expected: string, got: unknown): NodeFailure {
  return new NodeFailure('configuration_error', `${name} must be ${expected} (got ${JSON.stringify(got) ?? 'nothing'})`);
}

/** A positive integer, also from a string of digits (a template inside a longer string resolves to text). */
export function idField(fields: Record<string, unknown>, name: string): number | undefined {
  const v = fields[name];
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_ID) throw bad(name, 'a positive integer', v);
  return n;
}

export function requiredId(fields: Record<string, unknown>, name: string): number {
  const id = idField(fields, name);
  if (id === undefined) throw new NodeFailure('configuration_error', `${name} is required`);
  return id;
}

export function booleanField(fields: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const v = fields[name];
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw bad(name, 'true or false', v);
}

/**
 * The user a RAG call acts for: always the run's, from the signed job
 * (NodeContext.runUserId). The body's `user_id` (spec 2.7) may only name that
 * same user; a run without a user has no documents to index or read.
 */
export function userIdFor(ctx: NodeContext, fields: Record<string, unknown>): number {
  const runUserId = ctx.runUserId;
  if (runUserId === undefined) throw new NodeFailure('configuration_error', 'this run acts for no user, so it cannot index or query documents');
  const given = idField(fields, 'user_id');
  if (given !== undefined && given !== runUserId) {
    throw new NodeFailure('configuration_error', `user_id ${given} is not the user this workflow runs for`);
  }
  return runUserId;
}

/** The node's `timeout` (seconds) in milliseconds, when set. */
export function timeoutMsOf(ctx: NodeContext): number | undefined {
  const v = ctx.config['timeout'];
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n <= 0 || n > 3600) throw bad('timeout', 'a number of seconds between 0 and 3600', v);
  return Math.round(n * 1000);
}
