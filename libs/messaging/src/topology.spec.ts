import { BrokerUnavailableError, InvalidMessageError } from './errors';
import { decodeMessage, deliveryCountOf } from './codec';
import { backoffDelay, requeueDelay, workQueueDeclaration } from './topology';
import { IsInt, IsString } from 'class-validator';

class Sample {
  @IsString() name!: string;
  @IsInt() n!: number;
}

describe('workQueueDeclaration', () => {
  it('declares a quorum queue with delivery limit and dead-lettering to <name>.dlq', () => {
    expect(workQueueDeclaration('workflow_queue')).toEqual({
      name: 'workflow_queue',
      deadLetterQueue: 'workflow_queue.dlq',
      deliveryLimit: 5,
      arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': 5, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'workflow_queue.dlq' },
    });
    expect(workQueueDeclaration('q', { deliveryLimit: 2 }).arguments['x-delivery-limit']).toBe(2);
  });

  it('rejects a non-positive delivery limit', () => {
    expect(() => workQueueDeclaration('q', { deliveryLimit: 0 })).toThrow('deliveryLimit of q must be a positive integer');
  });
});

describe('backoffDelay', () => {
  it('doubles from the initial delay and never exceeds the cap', () => {
    const mid = () => 0.5; // no jitter
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, 250, 10000, mid))).toEqual([250, 500, 1000, 2000]);
    expect(backoffDelay(20, 250, 10000, () => 1)).toBe(10000);
    expect(backoffDelay(1, 250, 10000, () => 0)).toBe(200);
  });
});

describe('requeueDelay', () => {
  it('grows with the delivery count up to its cap', () => {
    expect(requeueDelay(1, 200)).toBe(200);
    expect(requeueDelay(3, 200)).toBe(600);
    expect(requeueDelay(100, 200)).toBe(5000);
  });
});

describe('decodeMessage', () => {
  it('returns a validated instance', () => {
    const r = decodeMessage(Sample, Buffer.from('{"name":"x","n":3,"extra":true}'));
    expect(r.ok && r.value instanceof Sample && r.value.n === 3).toBe(true);
  });

  it('names what is wrong', () => {
    expect(decodeMessage(Sample, Buffer.from('not json'))).toEqual({ ok: false, errors: ['body is not valid JSON'] });
    expect(decodeMessage(Sample, Buffer.from('[1]'))).toEqual({ ok: false, errors: ['body must be a JSON object'] });
    const r = decodeMessage(Sample, Buffer.from('{"name":1}'));
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.errors.join(' | ')).toMatch(/name.*string.*\|.*n.*integer/);
  });
});

describe('deliveryCountOf', () => {
  it('reads the quorum queue header as previous deliveries', () => {
    expect(deliveryCountOf({}, false)).toBe(1);
    expect(deliveryCountOf({ 'x-delivery-count': 2 }, true)).toBe(3);
    expect(deliveryCountOf(undefined, true)).toBe(2);
  });
});

describe('errors', () => {
  it('maps to HTTP statuses', () => {
    expect(new BrokerUnavailableError().status).toBe(503);
    expect(new BrokerUnavailableError().code).toBe('broker_unavailable');
    const invalid = new InvalidMessageError('JobMessageV1', ['job_id: must be a string']);
    expect(invalid.status).toBe(400);
    expect(invalid.details).toEqual({ errors: ['job_id: must be a string'], kind: 'JobMessageV1' });
  });
});
