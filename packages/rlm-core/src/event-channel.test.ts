import { describe, expect, test } from 'vitest';
import { EventChannel } from './event-channel.js';

describe('EventChannel', () => {
  test('delivers pushed events in order, then ends on close', async () => {
    const channel = new EventChannel<number>();
    channel.push(1);
    setTimeout(() => {
      channel.push(2);
      channel.close();
    }, 5);
    const seen: number[] = [];
    for await (const event of channel) seen.push(event);
    expect(seen).toEqual([1, 2]);
  });

  test('throws the closing error after the buffered events', async () => {
    const channel = new EventChannel<number>();
    channel.push(1);
    channel.close({ error: new Error('run failed') });
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const event of channel) seen.push(event);
      })(),
    ).rejects.toThrow('run failed');
    expect(seen).toEqual([1]);
  });

  test('never blocks the producer: past capacity the oldest droppable event goes', () => {
    const channel = new EventChannel<string>({
      capacity: 3,
      isDroppable: (event) => event !== 'final',
    });
    for (const event of ['final', 'a', 'b', 'c', 'd']) channel.push(event);
    expect(channel.dropped).toBe(2);
  });

  test('a full buffer costs O(1) a push: the droppable check runs about once per event', async () => {
    let checks = 0;
    const channel = new EventChannel<string>({
      capacity: 10_000,
      isDroppable: (event) => {
        checks += 1;
        return !event.startsWith('final');
      },
    });
    const pushed = 200_000;
    for (let index = 0; index < pushed; index++) {
      channel.push(index % 1000 === 0 ? `final ${index}` : `event ${index}`);
    }
    expect(checks).toBeLessThan(2 * pushed);
    expect(channel.dropped).toBe(pushed - 10_000);
    const seen: string[] = [];
    channel.close();
    for await (const event of channel) seen.push(event);
    expect(seen).toHaveLength(10_000);
    // Every non-droppable event is kept, in order, before the newest droppable ones.
    expect(seen.filter((event) => event.startsWith('final'))).toHaveLength(200);
    expect(seen.at(-1)).toBe(`event ${pushed - 1}`);
    const numbers = seen.map((event) => Number(event.split(' ')[1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });

  test('breaking out of the loop calls onReturn', async () => {
    let returned = 0;
    const channel = new EventChannel<number>({ onReturn: () => (returned += 1) });
    channel.push(1);
    channel.push(2);
    for await (const _event of channel) break;
    expect(returned).toBe(1);
  });
});
