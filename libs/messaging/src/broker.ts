import { randomUUID } from 'node:crypto';
import { connect } from 'amqplib';
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import { currentCorrelationId, errorMessage, HealthCheck, Logger, newCorrelationId } from '@docflow/service-kit';
import { withOutgoingSpan } from '@docflow/telemetry';
import { encodeMessage } from './codec';
import { BatchConsumer } from './batch-consumer';
import { Consumer } from './consumer';
import type { ConsumerHost, Subscription } from './subscription';
import { BrokerUnavailableError, InvalidMessageError } from './errors';
import { ReturnTracker, sendConfirmed } from './publisher';
import { bounded, describeUrl, noop } from './util';
import { backoffDelay, workQueueDeclaration, WorkQueueDeclaration, WorkQueueOptions } from './topology';
import type { BatchConsumeOptions, BatchHandler, BrokerOptions, BrokerState, ConsumeOptions, ConsumerHandle, MessageHandler, PublishOptions, QueueStats } from './types';

/** One AMQP connection and what was set up on it. */
interface Session {
  readonly id: number;
  readonly conn: ChannelModel;
  pub?: ConfirmChannel;
  lost: boolean;
  readonly declared: Set<string>;
}

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

/**
 * Docflow's only door to RabbitMQ. Connects in the background and keeps
 * reconnecting with exponential backoff; on every new connection it
 * re-declares the work queues it was asked for and re-creates every consumer,
 * before it reports itself connected. Publishes are validated against their
 * contract class and wait for the broker's confirm; consumers validate before
 * their handler runs and ack only after it resolved.
 */
export class Broker {
  readonly logger: Logger;
  readonly requeueDelayMs: number;
  private readonly url: string;
  private readonly name: string;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly publishTimeoutMs: number;

  private readonly queues = new Map<string, WorkQueueDeclaration>();
  /** Fanout exchanges and the queues bound to each. */
  private readonly exchanges = new Map<string, readonly string[]>();
  private readonly consumers = new Set<Subscription>();
  private readonly stateListeners = new Set<(state: BrokerState) => void>();
  private readonly readyWaiters = new Set<Waiter>();
  private readonly sleepers = new Set<() => void>();
  private readonly returns = new ReturnTracker();

  private readonly host: ConsumerHost;
  private session: Session | undefined;
  private sessionSeq = 0;
  private connected = false;
  private connecting = false;
  private attempt = 0;
  private coalesceWarned = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;

  private constructor(options: BrokerOptions) {
    this.logger = options.logger.child({ component: 'broker' });
    this.name = options.name;
    this.initialMs = options.reconnect?.initialMs ?? 250;
    this.maxMs = Math.max(this.initialMs, options.reconnect?.maxMs ?? 10000);
    this.publishTimeoutMs = options.publishTimeoutMs ?? 10000;
    this.requeueDelayMs = options.requeueDelayMs ?? 250;
    const u = new URL(options.url);
    if (!u.searchParams.has('heartbeat')) u.searchParams.set('heartbeat', String(options.heartbeatSeconds ?? 15));
    this.url = u.toString();
    this.host = {
      logger: this.logger,
      requeueDelayMs: this.requeueDelayMs,
      sleep: (ms) => this.sleep(ms),
      isClosing: () => this.closed,
      onConsumerLost: (consumer, reason) => {
        const s = this.session;
        if (s && consumer.sessionId === s.id) this.resetSession(s, `${reason} (${consumer.queue})`);
      },
      forget: (consumer) => {
        this.consumers.delete(consumer);
      },
    };
  }

  /** Creates the broker and starts connecting in the background; use `ready()` to wait. */
  static connect(options: BrokerOptions): Broker {
    const broker = new Broker(options);
    broker.logger.info('connecting to broker', { url: describeUrl(options.url), connectionName: options.name });
    broker.scheduleConnect(0);
    return broker;
  }

  isConnected(): boolean {
    return this.connected;
  }

  /** Resolves once connected (topology declared, consumers subscribed); rejects with BrokerUnavailableError after `timeoutMs` or on close. */
  ready(timeoutMs = 30000): Promise<void> {
    if (this.connected) return Promise.resolve();
    if (this.closed) return Promise.reject(new BrokerUnavailableError('Message broker client is closed'));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: () => {
          clearTimeout(timer);
          this.readyWaiters.delete(waiter);
          resolve();
        },
        reject: (err) => {
          clearTimeout(timer);
          this.readyWaiters.delete(waiter);
          reject(err);
        },
      };
      const timer = setTimeout(() => waiter.reject(new BrokerUnavailableError(`Message broker not reachable within ${timeoutMs} ms`)), timeoutMs);
      this.readyWaiters.add(waiter);
    });
  }

  /** Listens to connected / disconnected transitions; returns the unsubscribe function. */
  onStateChange(listener: (state: BrokerState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  healthCheck(): HealthCheck {
    return {
      name: 'broker',
      check: async () => {
        if (!this.connected) throw new Error(this.closed ? 'broker client closed' : 'not connected to the message broker');
      },
    };
  }

  /**
   * Declares a durable quorum work queue and its dead-letter queue, now when
   * connected and again on every reconnect. Every declarer of a queue must
   * pass the same options, or RabbitMQ refuses the declaration.
   */
  async assertWorkQueue(name: string, options: WorkQueueOptions = {}): Promise<void> {
    const decl = workQueueDeclaration(name, options);
    const known = this.queues.get(name);
    if (known && known.deliveryLimit !== decl.deliveryLimit) {
      throw new Error(`queue ${name} was already asserted with deliveryLimit ${known.deliveryLimit}`);
    }
    this.queues.set(name, decl);
    const s = this.session;
    // Not connected: the (re)connect declares it before the broker reports connected.
    if (!this.connected || !s || s.lost || s.declared.has(name)) return;
    try {
      await this.declare(s, decl);
    } catch (err) {
      throw new BrokerUnavailableError(`Could not declare queue ${name}: ${errorMessage(err)}`);
    }
  }

  /**
   * Declares a durable fanout exchange bound to `queues` (each asserted with
   * `assertWorkQueue` first), now when connected and again on every
   * reconnect. A publish with `{ exchange }` then puts one message on every
   * bound queue for one confirm.
   */
  async assertFanoutExchange(name: string, queues: readonly string[]): Promise<void> {
    const missing = queues.filter((q) => !this.queues.has(q));
    if (missing.length) throw new Error(`assertWorkQueue(${missing.join(', ')}) before binding to exchange ${name}`);
    const known = this.exchanges.get(name) ?? [];
    const bound = [...new Set([...known, ...queues])];
    this.exchanges.set(name, bound);
    const s = this.session;
    if (!this.connected || !s || s.lost || (s.declared.has(exchangeKey(name)) && queues.every((q) => known.includes(q)))) return;
    try {
      await this.declareExchange(s, name, bound);
    } catch (err) {
      throw new BrokerUnavailableError(`Could not declare exchange ${name}: ${errorMessage(err)}`);
    }
  }

  /**
   * Validates `message` against `cls`, publishes it persistently and waits
   * for the broker's confirm. Throws InvalidMessageError (nothing sent) or
   * BrokerUnavailableError (not connected, not confirmed, or no such queue).
   * With `opts.exchange`, the message goes to that exchange with `queue` as
   * its routing key (unroutable: BrokerUnavailableError).
   */
  async publish<T extends object>(queue: string, cls: new () => T, message: T, opts: PublishOptions = {}): Promise<void> {
    const encoded = encodeMessage(cls, message);
    if (!encoded.ok) throw new InvalidMessageError(cls.name, encoded.errors);
    const s = this.session;
    const ch = s?.pub;
    if (this.closed || !this.connected || !s || s.lost || !ch) throw new BrokerUnavailableError('Message broker is not connected');
    const messageId = opts.messageId ?? randomUUID();
    // The correlation id travels as a header (what consumers read) and as the AMQP property tools show.
    const correlationId = currentCorrelationId() ?? newCorrelationId();
    // A producer span (tracing on) whose W3C traceparent rides in the headers: the consumer's span is its child.
    const attributes = { 'messaging.system': 'rabbitmq', 'messaging.operation.type': 'send', 'messaging.destination.name': queue, 'messaging.message.id': messageId, 'docflow.message.kind': cls.name };
    await withOutgoingSpan(`publish ${queue}`, 'producer', attributes, (trace) => {
      const headers = { ...opts.headers, ...trace, 'x-correlation-id': correlationId, kind: cls.name };
      const options = { contentType: 'application/json', messageId, correlationId, type: cls.name, appId: this.name, timestamp: Math.floor(Date.now() / 1000), headers };
      return sendConfirmed(ch, queue, encoded.value, options, this.returns, this.publishTimeoutMs, opts.exchange);
    });
  }

  /**
   * Subscribes `handler` to `queue` (asserted with `assertWorkQueue` first, or
   * its dead-letter queue). Messages are validated against `cls`; invalid ones
   * and those whose handler throws NonRetryableMessageError are dead-lettered;
   * other failures are requeued after a short delay until the delivery limit.
   * The subscription survives reconnects.
   */
  consume<T extends object>(queue: string, cls: new () => T, handler: MessageHandler<T>, opts: ConsumeOptions = {}): ConsumerHandle {
    const prefetch = this.checkConsume(queue, opts.prefetch ?? 16);
    return this.subscribe(new Consumer<T>(this.host, queue, cls, handler, prefetch, opts.coalesceAcks ?? false));
  }

  /**
   * Like `consume`, but `handler` gets every validated message the prefetch
   * window holds that has arrived (up to `maxBatch`; no waiting for more)
   * and applies them all or none; the batch is then acked with one
   * multiple-ack. When the handler throws, each message is handed to it
   * again alone and settled as `consume` would (see BatchConsumer). With
   * `lingerMs`, a batch below `maxBatch` waits that long after its oldest
   * delivery for more.
   */
  consumeBatch<T extends object>(queue: string, cls: new () => T, handler: BatchHandler<T>, opts: BatchConsumeOptions = {}): ConsumerHandle {
    const prefetch = this.checkConsume(queue, opts.prefetch ?? 64);
    const maxBatch = opts.maxBatch ?? Math.max(1, Math.floor(prefetch / 2));
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error('maxBatch must be a positive integer');
    const lingerMs = opts.lingerMs ?? 0;
    if (!Number.isFinite(lingerMs) || lingerMs < 0 || lingerMs > 1000) throw new Error('lingerMs must be between 0 and 1000');
    return this.subscribe(new BatchConsumer<T>(this.host, queue, cls, handler, prefetch, maxBatch, lingerMs));
  }

  /** Message and consumer counts of a queue (passive declare); BrokerUnavailableError when not connected or missing. */
  async checkQueue(queue: string): Promise<QueueStats> {
    const s = this.session;
    if (!this.connected || !s || s.lost) throw new BrokerUnavailableError('Message broker is not connected');
    const ch = await s.conn.createChannel();
    ch.on('error', noop);
    try {
      const r = await ch.checkQueue(queue);
      return { messageCount: r.messageCount, consumerCount: r.consumerCount };
    } catch (err) {
      throw new BrokerUnavailableError(`Cannot inspect queue ${queue}: ${errorMessage(err)}`);
    } finally {
      await ch.close().catch(noop);
    }
  }

  /**
   * Stops consuming, waits up to `timeoutMs` for in-flight handlers (they ack;
   * anything still unacked is requeued by RabbitMQ when the connection
   * closes), then closes the connection. No reconnect afterwards.
   */
  close(timeoutMs = 10000): Promise<void> {
    if (!this.closing) this.closing = this.shutdown(timeoutMs);
    return this.closing;
  }

  // ---- internals -------------------------------------------------------

  /** Refuses a subscription to an undeclared queue or with a bad prefetch; answers the prefetch. */
  private checkConsume(queue: string, prefetch: number): number {
    if (this.closed) throw new Error('broker client is closed');
    const known = this.queues.has(queue) || [...this.queues.values()].some((d) => d.deadLetterQueue === queue);
    if (!known) throw new Error(`assertWorkQueue('${queue}') before consuming it`);
    if (!Number.isInteger(prefetch) || prefetch < 1) throw new Error('prefetch must be a positive integer');
    return prefetch;
  }

  private subscribe(consumer: Subscription): ConsumerHandle {
    this.consumers.add(consumer);
    const s = this.session;
    if (this.connected && s && !s.lost) {
      this.attach(s, consumer).catch((err: unknown) => this.resetSession(s, `could not subscribe to ${consumer.queue}: ${errorMessage(err)}`));
    }
    return consumer.handle();
  }

  private async shutdown(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const wake of [...this.sleepers]) wake();
    for (const w of [...this.readyWaiters]) w.reject(new BrokerUnavailableError('Message broker client is closed'));
    const consumers = [...this.consumers];
    await bounded(Promise.allSettled(consumers.map((c) => c.stop())), deadline - Date.now());
    await bounded(Promise.allSettled(consumers.flatMap((c) => [...c.inFlight])), deadline - Date.now());
    const s = this.session;
    this.session = undefined;
    const wasConnected = this.connected;
    this.connected = false;
    if (s) {
      s.lost = true;
      // Channels first, so the acks just sent are settled before the connection goes.
      await bounded(Promise.allSettled(consumers.map((c) => c.closeChannel())), Math.max(1000, deadline - Date.now()));
      if (s.pub) await bounded(s.pub.close(), 1000);
      await bounded(s.conn.close(), Math.max(1000, deadline - Date.now()));
    }
    for (const c of consumers) c.detach();
    if (wasConnected) this.emitState('disconnected');
    this.logger.info('broker client closed');
  }

  private sleep(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(t);
        this.sleepers.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  private emitState(state: BrokerState): void {
    for (const l of [...this.stateListeners]) {
      try {
        l(state);
      } catch (err) {
        this.logger.warn('broker state listener failed', { error: errorMessage(err) });
      }
    }
  }

  private scheduleConnect(delayMs: number): void {
    if (this.closed || this.timer || this.connecting) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tryConnect();
    }, delayMs);
    this.timer.unref();
  }

  private async tryConnect(): Promise<void> {
    if (this.closed || this.connecting) return;
    this.connecting = true;
    this.attempt += 1;
    let delay: number | undefined;
    try {
      await this.openSession();
    } catch (err) {
      delay = backoffDelay(this.attempt, this.initialMs, this.maxMs);
      const meta = { attempt: this.attempt, retryInMs: delay, error: errorMessage(err) };
      if (this.attempt === 1 || this.attempt % 10 === 0) this.logger.warn('broker connection failed; retrying', meta);
      else this.logger.debug('broker connection failed; retrying', meta);
    } finally {
      this.connecting = false;
    }
    if (delay !== undefined) this.scheduleConnect(delay);
  }

  private async openSession(): Promise<void> {
    // noDelay: amqplib leaves Nagle's algorithm on, which holds small frames back for tens of milliseconds.
    const conn = await connect(this.url, { timeout: 5000, noDelay: true, clientProperties: { connection_name: this.name } });
    if (!coalesceWrites(conn) && !this.coalesceWarned) {
      this.coalesceWarned = true;
      this.logger.warn('amqplib internals differ from the expected ones: frames are written one by one');
    }
    const session: Session = { id: ++this.sessionSeq, conn, lost: false, declared: new Set() };
    conn.on('error', (err: Error) => this.logger.warn('broker connection error', { error: err.message }));
    conn.on('close', (err?: Error) => this.onSessionLost(session, err ? `connection closed: ${err.message}` : 'connection closed'));
    conn.on('blocked', (reason: string) => this.logger.warn('broker blocked publishing', { reason }));
    conn.on('unblocked', () => this.logger.info('broker unblocked publishing'));
    try {
      if (this.closed) throw new Error('closed while connecting');
      this.session = session;
      const pub = await conn.createConfirmChannel();
      pub.on('error', (err: Error) => this.logger.warn('publish channel error', { error: err.message }));
      pub.on('close', () => {
        if (!session.lost && !this.closed) setImmediate(() => this.resetSession(session, 'publish channel closed'));
      });
      pub.on('return', this.returns.onReturn);
      session.pub = pub;
      await this.setUp(session);
      if (session.lost || this.closed) throw new Error('connection lost during setup');
    } catch (err) {
      session.lost = true;
      if (this.session === session) this.session = undefined;
      for (const c of this.consumers) if (c.sessionId === session.id) c.detach();
      await bounded(conn.close(), 2000);
      throw err;
    }
    this.connected = true;
    const attempts = this.attempt;
    this.attempt = 0;
    this.logger.info('broker connected', { attempts, queues: this.queues.size, consumers: this.consumers.size });
    this.emitState('connected');
    for (const w of [...this.readyWaiters]) w.resolve();
  }

  /** Declares every remembered queue and subscribes every consumer, including those added meanwhile. */
  private async setUp(session: Session): Promise<void> {
    for (;;) {
      if (session.lost) return;
      const decl = [...this.queues.values()].find((d) => !session.declared.has(d.name));
      if (decl) {
        await this.declare(session, decl);
        continue;
      }
      const exchange = [...this.exchanges].find(([name]) => !session.declared.has(exchangeKey(name)));
      if (exchange) {
        await this.declareExchange(session, exchange[0], exchange[1]);
        continue;
      }
      const consumer = [...this.consumers].find((c) => !c.cancelled && c.sessionId !== session.id);
      if (consumer) {
        await this.attach(session, consumer);
        continue;
      }
      return;
    }
  }

  private async declare(session: Session, decl: WorkQueueDeclaration): Promise<void> {
    const ch = await session.conn.createChannel();
    ch.on('error', (err: Error) => this.logger.error('queue declaration refused', { queue: decl.name, error: err.message }));
    try {
      await ch.assertQueue(decl.deadLetterQueue, { durable: true });
      await ch.assertQueue(decl.name, { durable: true, arguments: decl.arguments });
      session.declared.add(decl.name);
    } finally {
      await ch.close().catch(noop);
    }
  }

  private async declareExchange(session: Session, name: string, queues: readonly string[]): Promise<void> {
    const ch = await session.conn.createChannel();
    ch.on('error', (err: Error) => this.logger.error('exchange declaration refused', { exchange: name, error: err.message }));
    try {
      await ch.assertExchange(name, 'fanout', { durable: true });
      for (const q of queues) await ch.bindQueue(q, name, '');
      session.declared.add(exchangeKey(name));
    } finally {
      await ch.close().catch(noop);
    }
  }

  private async attach(session: Session, consumer: Subscription): Promise<void> {
    const ch = await session.conn.createChannel();
    await consumer.attach(session.id, ch);
  }

  private onSessionLost(session: Session, reason: string): void {
    if (session.lost) return;
    session.lost = true;
    if (this.session === session) this.session = undefined;
    for (const c of this.consumers) if (c.sessionId === session.id) c.detach();
    // Confirms of that channel fail with it; their pending returns are moot.
    this.returns.clear();
    const wasConnected = this.connected;
    this.connected = false;
    if (this.closed) return;
    if (wasConnected) {
      this.logger.warn('broker connection lost; reconnecting', { reason });
      this.emitState('disconnected');
    }
    this.scheduleConnect(backoffDelay(1, this.initialMs, this.maxMs));
  }

  /** Drops a connection whose channels are no longer trustworthy; the reconnect rebuilds everything. */
  private resetSession(session: Session, reason: string): void {
    if (session.lost || this.closed) return;
    this.logger.warn('resetting broker connection', { reason });
    this.onSessionLost(session, reason);
    void bounded(session.conn.close(), 2000);
  }
}

/** What coalesceWrites reaches inside amqplib 2's connection. */
interface AmqpInternals {
  connection?: { stream?: { cork?: () => void; uncork?: () => void }; muxer?: { _readIncoming?: () => void } };
}

/**
 * amqplib writes every frame group its channels queued (a publish, an ack,
 * a confirm-select...) to the socket with its own write, one system call
 * and one TCP segment each, although its multiplexer collects them once
 * per macrotask. Corking the socket around that collection sends them as
 * one writev: under load a processor's acks and publishes of the same turn
 * leave together, and RabbitMQ reads them together. Backpressure is
 * unchanged (a corked write still reports a full buffer). Left alone when
 * amqplib's internals are not the expected ones (answers false; a test
 * holds the installed amqplib to answering true).
 */
export function coalesceWrites(conn: ChannelModel): boolean {
  const internals = (conn as unknown as AmqpInternals).connection;
  const stream = internals?.stream;
  const muxer = internals?.muxer;
  const readIncoming = muxer?._readIncoming;
  if (!stream || !muxer || typeof readIncoming !== 'function' || typeof stream.cork !== 'function' || typeof stream.uncork !== 'function') return false;
  const { cork, uncork } = { cork: stream.cork.bind(stream), uncork: stream.uncork.bind(stream) };
  muxer._readIncoming = () => {
    cork();
    try {
      readIncoming.call(muxer);
    } finally {
      uncork();
    }
  };
  return true;
}

/** An exchange's entry in a session's set of declared names (queues are entered by their own name). */
function exchangeKey(name: string): string {
  return `exchange:${name}`;
}
