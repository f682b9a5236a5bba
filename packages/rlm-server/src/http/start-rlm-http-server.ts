import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { ServerSettingsError } from '../errors/server-settings-error.js';
import { createRlmHttpApp, type RlmHttpAppSettings } from './create-rlm-http-app.js';
import { isLoopbackHost } from './is-loopback-host.js';

/** Settings of {@link startRlmHttpServer}. */
export interface RlmHttpServerSettings extends RlmHttpAppSettings {
  /**
   * The address to listen on. Default `127.0.0.1` (this machine only); any other than a
   * loopback address needs `token`.
   */
  readonly host?: string;
  /** The port; 0 for any free one. Default {@link defaultServerPort}. */
  readonly port?: number;
}

/** A listening server. */
export interface RlmHttpServer {
  /** Where it listens, e.g. `http://127.0.0.1:8765` (the OpenAI base URL is `${url}/v1`). */
  readonly url: string;
  readonly port: number;
  /**
   * Shuts down gracefully: stops accepting connections, answers new requests 503, lets running
   * runs finish for `graceMs` (default 30,000), then cuts the rest (a stream ends with an error
   * event, a waiting client gets 503), and closes every connection. Resolves when all is
   * closed. Calling it again returns the same promise; a shorter `graceMs` then cuts sooner.
   */
  close(options?: { readonly graceMs?: number }): Promise<void>;
}

/** How long `close` waits, after the runs ended, for their responses to be written. */
const responseWriteGraceMs = 5_000;

/** The port `startRlmHttpServer` listens on unless told otherwise. */
export const defaultServerPort = 8765;

/**
 * Serves an {@link RlmService} over HTTP (see `createRlmHttpApp` for the routes) on Node's
 * `http` server.
 *
 * @throws {ServerSettingsError} for a non-loopback host without a token, an empty token, or a
 * bad port; rejects with the listen error (e.g. `EADDRINUSE`).
 */
export async function startRlmHttpServer(settings: RlmHttpServerSettings): Promise<RlmHttpServer> {
  const host = settings.host ?? '127.0.0.1';
  const port = settings.port ?? defaultServerPort;
  if (settings.token !== undefined && settings.token.trim() === '') {
    throw new ServerSettingsError(
      '@rlm/server: token is empty; give a long random string, or none on a loopback host',
    );
  }
  if (!isLoopbackHost(host) && settings.token === undefined) {
    throw new ServerSettingsError(
      `@rlm/server: listening on ${host} lets other machines in, so a bearer token is required; give token, or listen on 127.0.0.1`,
    );
  }
  if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) {
    throw new ServerSettingsError(
      `@rlm/server: port must be a whole number from 0 to 65535 (got ${String(port)})`,
    );
  }
  const { app, close: closeApp } = createRlmHttpApp(settings);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = serve({ fetch: app.fetch, hostname: host, port }, () => {
      listening.off('error', reject);
      resolve(listening as Server);
    });
    listening.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  // Responses still being written (a run's answer is sent after the run has ended).
  let writing = 0;
  let onAllWritten: (() => void) | undefined;
  server.on('request', (_request, response) => {
    writing++;
    response.once('close', () => {
      writing--;
      if (writing === 0) onAllWritten?.();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    close(options = {}) {
      // Called again while closing: a shorter grace period brings the cut forward.
      if (closing) void settings.service.close(options);
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await settings.service.close(options);
        await closeApp();
        // The answers of the runs that ended are written; a client that does not read its
        // response gets a few seconds more.
        await new Promise<void>((resolve) => {
          if (writing === 0) return resolve();
          onAllWritten = resolve;
          setTimeout(resolve, responseWriteGraceMs).unref();
        });
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}
