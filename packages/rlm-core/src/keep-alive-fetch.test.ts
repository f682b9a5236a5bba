import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, expect, test, vi } from 'vitest';
import { keepAliveFetch } from './keep-alive-fetch.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** A loopback server that counts its connections; closed after each test. */
async function startServer(handler: Handler) {
  let connections = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => handler(request, body, response));
  });
  server.on('connection', () => {
    connections += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return {
    url,
    get connections() {
      return connections;
    },
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(closers.splice(0).map((close) => close()));
});

test('sends method, headers and a string or byte body, and gives status, headers and body', async () => {
  const server = await startServer((request, body, response) => {
    response.writeHead(201, 'Made', [
      'content-type',
      'application/json',
      'x-seen',
      'a',
      'x-seen',
      'b',
    ]);
    response.end(
      JSON.stringify({ method: request.method, auth: request.headers.authorization, body }),
    );
  });
  const response = await keepAliveFetch(new URL('/v1/chat', server.url), {
    method: 'post',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: '{"é":1}',
  });
  expect(response.status).toBe(201);
  expect(response.statusText).toBe('Made');
  expect(response.ok).toBe(true);
  expect(response.headers.get('x-seen')).toBe('a, b');
  expect(await response.json()).toEqual({ method: 'POST', auth: 'Bearer k', body: '{"é":1}' });
  const bytes = await keepAliveFetch(`${server.url}/`, {
    method: 'PUT',
    body: new TextEncoder().encode('bytes'),
  });
  expect(await bytes.json()).toMatchObject({ method: 'PUT', body: 'bytes' });
});

test('requests one after another share one connection, and never use the global fetch', async () => {
  const server = await startServer((_request, _body, response) => response.end('ok'));
  const globalFetch = vi.spyOn(globalThis, 'fetch');
  for (let request = 0; request < 5; request++) {
    expect(await (await keepAliveFetch(server.url, { method: 'POST', body: 'x' })).text()).toBe(
      'ok',
    );
  }
  expect(server.connections).toBe(1);
  expect(globalFetch).not.toHaveBeenCalled();
});

test('streams the body as it arrives', async () => {
  let finish!: () => void;
  const server = await startServer((_request, _body, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('data: first\n\n');
    finish = () => response.end('data: [DONE]\n\n');
  });
  const response = await keepAliveFetch(server.url);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
  finish();
  let rest = '';
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    rest += new TextDecoder().decode(next.value);
  }
  expect(rest).toBe('data: [DONE]\n\n');
});

test('an abort before the answer rejects with the signal reason; during the body, errors it', async () => {
  const server = await startServer((request, _body, response) => {
    if (request.url === '/hang') return;
    response.write('part');
  });
  const before = new AbortController();
  const hanging = keepAliveFetch(`${server.url}/hang`, { signal: before.signal });
  before.abort(new Error('stop now'));
  await expect(hanging).rejects.toThrow('stop now');
  const already = AbortSignal.abort();
  await expect(keepAliveFetch(server.url, { signal: already })).rejects.toMatchObject({
    name: 'AbortError',
  });
  const during = new AbortController();
  const response = await keepAliveFetch(`${server.url}/part`, { signal: during.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  during.abort(new Error('cut'));
  await expect(reader.read()).rejects.toThrow();
});

test('decodes a gzip answer, gives no body for 204, and follows a redirect', async () => {
  const server = await startServer((request, _body, response) => {
    if (request.url === '/gzip') {
      response.writeHead(200, { 'content-encoding': 'gzip' });
      response.end(gzipSync('unzipped'));
    } else if (request.url === '/empty') {
      response.writeHead(204);
      response.end();
    } else if (request.url === '/moved') {
      response.writeHead(307, { location: '/there' });
      response.end();
    } else {
      response.end(`at ${request.url}`);
    }
  });
  expect(await (await keepAliveFetch(`${server.url}/gzip`)).text()).toBe('unzipped');
  const empty = await keepAliveFetch(`${server.url}/empty`);
  expect(empty.status).toBe(204);
  expect(empty.body).toBeNull();
  const moved = await keepAliveFetch(`${server.url}/moved`, { method: 'POST', body: 'x' });
  expect(moved.status).toBe(200);
  expect(await moved.text()).toBe('at /there');
});

test('a refused connection rejects as fetch does: a TypeError with the cause', async () => {
  const server = await startServer(() => undefined);
  const { port } = new URL(server.url);
  await Promise.all(closers.splice(0).map((close) => close()));
  const failure = await keepAliveFetch(`http://127.0.0.1:${port}/`).catch((error) => error);
  expect(failure).toBeInstanceOf(TypeError);
  expect((failure as TypeError).cause).toMatchObject({ code: 'ECONNREFUSED' });
});

test('what it does not send itself (a form body, a Request) goes to the global fetch', async () => {
  const server = await startServer((request, body, response) =>
    response.end(`${request.headers['content-type']?.split(';')[0]} ${body.length > 0}`),
  );
  const form = new FormData();
  form.set('field', 'value');
  expect(await (await keepAliveFetch(server.url, { method: 'POST', body: form })).text()).toBe(
    'multipart/form-data true',
  );
  expect(await (await keepAliveFetch(new Request(server.url))).text()).toBe('undefined false');
});

test('an idle keep-alive connection does not keep a process alive', async () => {
  const server = await startServer((_request, _body, response) => response.end('ok'));
  // The child reports what still holds its event loop once the answer is read.
  const script = `
    const { keepAliveFetch } = await import(${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)});
    const response = await keepAliveFetch(${JSON.stringify(server.url)});
    const text = await response.text();
    setImmediate(() => console.log(JSON.stringify({ text, holding: process.getActiveResourcesInfo() })));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
  const report = JSON.parse(output) as { text: string; holding: string[] };
  expect(report.text).toBe('ok');
  expect(report.holding.filter((resource) => resource.startsWith('TCP'))).toEqual([]);
  expect(server.connections).toBe(1);
}, 30_000);
