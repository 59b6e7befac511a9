import winston from 'winston';
import { activeTraceIds } from '@docflow/telemetry';
import { currentContext } from './context';

export type LogMeta = Record<string, unknown>;

/** The logging interface libraries take; the winston wrapper below implements it. */
export interface Logger {
  debug(message: string, meta?: LogMeta): void;
  info(message: string, meta?: LogMeta): void;
  warn(message: string, meta?: LogMeta): void;
  error(message: string, meta?: LogMeta): void;
  child(meta: LogMeta): Logger;
}

export interface LoggerOptions {
  service: string;
  level?: string;
  /** `json` (default, and always in production) or `pretty` for a terminal. */
  format?: 'json' | 'pretty';
}

const SECRET_KEYS = /pass(word)?|secret|token|authorization|api[-_]?key|service[-_]?key|cookie|jwt|code_hash|credential/i;

/** Replaces the values of secret-looking keys, at any depth, before a line is written. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEYS.test(k) && v !== undefined && v !== null && typeof v !== 'boolean' ? '[redacted]' : redactSecrets(v, depth + 1);
  }
  return out;
}

const addContext = winston.format((info) => {
  const ctx = currentContext();
  if (ctx) {
    for (const [k, v] of Object.entries(ctx)) {
      if (v !== undefined && info[k] === undefined) info[k] = v;
    }
  }
  // With tracing on, a line also names its trace and span, so a log search and a trace view meet.
  const ids = activeTraceIds();
  if (ids && info['traceId'] === undefined) {
    info['traceId'] = ids.traceId;
    info['spanId'] = ids.spanId;
  }
  return info;
});

const redact = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level' || key === 'message') continue;
    info[key] = SECRET_KEYS.test(key) ? '[redacted]' : redactSecrets(info[key]);
  }
  return info;
});

/**
 * winston runs the whole format pipeline (context, redaction, JSON) before a
 * transport drops a line below its level, so each call checks the level first:
 * an unlogged debug line per request cost measurable CPU on hot paths.
 */
class WinstonLogger implements Logger {
  constructor(private readonly inner: winston.Logger) {}
  debug(message: string, meta?: LogMeta): void {
    if (this.inner.isDebugEnabled()) this.inner.debug(message, meta);
  }
  info(message: string, meta?: LogMeta): void {
    if (this.inner.isInfoEnabled()) this.inner.info(message, meta);
  }
  warn(message: string, meta?: LogMeta): void {
    if (this.inner.isWarnEnabled()) this.inner.warn(message, meta);
  }
  error(message: string, meta?: LogMeta): void {
    this.inner.error(message, meta);
  }
  child(meta: LogMeta): Logger {
    return new WinstonLogger(this.inner.child(meta));
  }
}

export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.format === 'pretty';
  const inner = winston.createLogger({
    level: options.level ?? 'info',
    defaultMeta: { service: options.service },
    format: winston.format.combine(
      addContext(),
      redact(),
      winston.format.timestamp(),
      pretty
        ? winston.format.printf(({ level, message, timestamp, service: _s, ...rest }) => {
            const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
            return `${String(timestamp)} ${level} ${String(message)}${extra}`;
          })
        : winston.format.json(),
    ),
    transports: [new winston.transports.Console({ stderrLevels: ['error'] })],
  });
  return new WinstonLogger(inner);
}

/** A logger that drops everything, for unit tests of code that takes a Logger. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
