import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import {
  limitFetchResponses,
  limitResponseBytes,
  ResponseByteLimit,
} from './response-byte-limit.js';
import { ResponseTooLargeError } from './response-too-large-error.js';

describe('ResponseByteLimit', () => {
  test('counts up to the cap, then fails naming it', () => {
    const limit = new ResponseByteLimit(10);
    limit.count(4);
    limit.countText('ééé');
    expect(limit.receivedBytes).toBe(10);
    expect(() => limit.count(1)).toThrow(ResponseTooLargeError);
    const error = ResponseTooLargeError.findIn(new Error('outer', { cause: tryCount(limit) }));
    expect(error).toMatchObject({ maxBytes: 10, receivedBytes: 12 });
    expect(error?.retryDetail).toBe('sent more than 10 bytes');
    expect(new ResponseTooLargeError(8 * 1024 * 1024, 0).failureDetail).toBe(
      'sent more than maxResponseBytes (8 MiB)',
    );
  });
});

function tryCount(limit: ResponseByteLimit): unknown {
  try {
    limit.count(1);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('limitResponseBytes', () => {
  test('a loopback server that never ends its body is cut at the cap and its connection closed', async () => {
    let written = 0;
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = `data: ${'x'.repeat(16 * 1024)}\n\n`;
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) written += chunk.length;
        if (!response.destroyed) response.once('drain', pump);
      };
      response.on('close', closed);
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const limited = limitFetchResponses(fetch, 1024 * 1024);
      const response = await limited(`http://127.0.0.1:${port}/`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const error = await response.text().catch((caught: unknown) => caught);
      expect(ResponseTooLargeError.findIn(error)).toMatchObject({ maxBytes: 1024 * 1024 });
      await connectionClosed;
      // The server stopped where its socket filled up: a few megabytes, not without end.
      expect(written).toBeLessThan(64 * 1024 * 1024);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("the source's failure reaches the reader, and a reader's cancel reaches the source", async () => {
    const failure = new TypeError('terminated');
    let sent = 0;
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 2) controller.error(failure);
        else controller.enqueue(new Uint8Array([sent++]));
      },
    });
    const read = limitResponseBytes(new Response(failing), 1024).arrayBuffer();
    await expect(read).rejects.toBe(failure);
    let cancelled: unknown;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(8)),
      cancel: (reason) => {
        cancelled = reason;
      },
    });
    const reader = limitResponseBytes(new Response(endless), 1024).body!.getReader();
    expect((await reader.read()).value).toHaveLength(8);
    await reader.cancel('enough');
    expect(cancelled).toBe('enough');
  });

  test('a body within the cap, and a response without a body, pass as they are', async () => {
    const small = limitResponseBytes(new Response('hello', { status: 201 }), 5);
    expect(small.status).toBe(201);
    expect(await small.text()).toBe('hello');
    const empty = new Response(null, { status: 204 });
    expect(limitResponseBytes(empty, 1)).toBe(empty);
  });
});
