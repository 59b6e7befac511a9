import type { Request } from 'express';
import { answerChunks, wantsEventStream } from './chat-stream';

function req(accept: string | undefined, query: Record<string, string> = {}): Request {
  return { query, header: (name: string) => (name.toLowerCase() === 'accept' ? accept : undefined) } as unknown as Request;
}

describe('answerChunks', () => {
  it('cuts on word boundaries near the size and loses nothing', () => {
    const answer = 'The shop opens at nine in the morning and closes at six in the evening on weekdays [1].';
    const chunks = answerChunks(answer, 20);
    expect(chunks.join('')).toBe(answer);
    expect(chunks.every((c) => c.length <= 20)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.endsWith(' '))).toBe(true);
  });

  it('cuts a long word at the size, and gives nothing for an empty answer', () => {
    expect(answerChunks('x'.repeat(45), 20)).toEqual(['x'.repeat(20), 'x'.repeat(20), 'x'.repeat(5)]);
    expect(answerChunks('')).toEqual([]);
  });
});

describe('wantsEventStream', () => {
  it('is asked for by the Accept header or ?stream=true|1, nothing else', () => {
    expect(wantsEventStream(req('text/event-stream'))).toBe(true);
    expect(wantsEventStream(req('application/json, text/event-stream;q=0.9'))).toBe(true);
    expect(wantsEventStream(req(undefined, { stream: 'true' }))).toBe(true);
    expect(wantsEventStream(req(undefined, { stream: '1' }))).toBe(true);
    expect(wantsEventStream(req('application/json', { stream: 'false' }))).toBe(false);
    expect(wantsEventStream(req(undefined))).toBe(false);
  });
});
