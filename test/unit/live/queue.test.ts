/**
 * A subscription's message queue (src/live/queue.ts): what a graceful shutdown counts as not yet
 * sent. graphql-ws asks for the next message only once the previous one was written, so a message
 * handed out stays in flight until the next pull, whether it was queued or handed straight to a
 * waiting consumer.
 */
import type { LiveMessage } from '../../../src/live/messages';
import { MessageQueue } from '../../../src/live/queue';

const message = (cursor: string) => ({ cursor }) as unknown as LiveMessage;

describe('MessageQueue in flight', () => {
  it('a message handed to a waiting consumer is in flight until the consumer pulls again', async () => {
    let size = 0;
    const q = new MessageQueue(
      (d) => (size += d),
      () => {},
    );
    const first = q.next();
    expect(q.inFlight).toBe(0);
    q.push(message('1'));
    expect((await first).value.cursor).toBe('1');
    // Never queued (size 0), still not written: in flight.
    expect(size).toBe(0);
    expect(q.inFlight).toBe(1);
    void q.next();
    expect(q.inFlight).toBe(0);
  });

  it('a queued message leaves the queue into flight, and the end clears it', async () => {
    let size = 0;
    const q = new MessageQueue(
      (d) => (size += d),
      () => {},
    );
    q.push(message('1'));
    q.push(message('2'));
    expect(size).toBe(2);
    expect((await q.next()).value.cursor).toBe('1');
    expect(size).toBe(1);
    expect(q.inFlight).toBe(1);
    expect((await q.next()).value.cursor).toBe('2');
    expect(q.inFlight).toBe(1);
    q.end();
    expect(q.inFlight).toBe(0);
    expect(size).toBe(0);
  });
});
