import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ServedRequestError } from '../errors/served-request-error.js';
import { McpHttpSessions } from '../mcp/mcp-http-sessions.js';
import { addOpenAIRoutes, errorResponse } from '../openai/openai-routes.js';
import type { RlmService } from '../rlm-service.js';
import { checkBearerToken } from './check-bearer-token.js';

/** Settings of {@link createRlmHttpApp}. */
export interface RlmHttpAppSettings {
  readonly service: RlmService;
  /**
   * The bearer token every route but `/health` requires (`Authorization: Bearer <token>`);
   * `undefined` for none (loopback only: see `startRlmHttpServer`).
   */
  readonly token?: string;
  /** Most bytes of a request body; larger ones are answered 413. Default 64 MiB. */
  readonly maxBodyBytes?: number;
  /** Serve the OpenAI-compatible routes under `/v1`. Default true. */
  readonly openai?: boolean;
  /** Serve MCP over streamable HTTP at `/mcp`. Default false. */
  readonly mcp?: boolean;
  /** On a stream, a `: keep-alive` comment after this many ms of silence (0: none). Default 15,000. */
  readonly keepAliveMs?: number;
}

/** The HTTP app and what it holds open. */
export interface RlmHttpApp {
  /** The Hono app: `app.fetch` is the `fetch` handler. */
  readonly app: Hono;
  /** Closes what the app holds open (MCP sessions, whose running calls are cancelled). */
  close(): Promise<void>;
}

/** Request bodies up to this size unless `maxBodyBytes` says otherwise: 64 MiB. */
export const defaultMaxBodyBytes = 64 * 1024 * 1024;

/**
 * The HTTP face of an {@link RlmService}, as a Hono app (a `fetch` handler: serve it with
 * `startRlmHttpServer`, or any Hono adapter):
 * - `GET /health`: `{ status, running, concurrency }`, 200, or 503 while shutting down; no token;
 * - `GET /v1/models`, `GET /v1/models/{id}`, `POST /v1/chat/completions` (OpenAI-compatible);
 * - `/mcp`: MCP over streamable HTTP (sessions: see `McpHttpSessions`), when `mcp` is set.
 * Errors use the OpenAI error shape.
 */
export function createRlmHttpApp(settings: RlmHttpAppSettings): RlmHttpApp {
  const { service, token } = settings;
  const app = new Hono();
  const mcp = settings.mcp ? new McpHttpSessions(service) : undefined;
  /** A request refused before it reached a route (token, body size): logged, then answered. */
  const refuse = (c: Context, error: ServedRequestError): Response => {
    service.log({
      startedAt: Date.now(),
      requestId: `${c.req.method} ${c.req.path}`,
      protocol: c.req.path.startsWith('/mcp') ? 'mcp' : 'openai',
      status: error.status,
      outcome: 'rejected',
      durationMs: 0,
      error: error.code,
    });
    return errorResponse(error);
  };
  app.get('/health', () =>
    Response.json(
      {
        status: service.closing ? 'shutting_down' : 'ok',
        running: service.concurrency.running,
        concurrency: service.concurrency.size,
      },
      { status: service.closing ? 503 : 200 },
    ),
  );
  if (token !== undefined) {
    app.use('*', async (c, next) => {
      if (c.req.path === '/health' || checkBearerToken(c.req.header('authorization'), token)) {
        return next();
      }
      const given = c.req.header('authorization') !== undefined;
      const response = refuse(
        c,
        new ServedRequestError(
          given
            ? 'the bearer token is wrong; send the one this server was started with'
            : 'this server needs a bearer token; send Authorization: Bearer <token> (the api key of an OpenAI client)',
          { status: 401, code: 'invalid_api_key' },
        ),
      );
      response.headers.set('www-authenticate', 'Bearer');
      return response;
    });
  }
  const maxSize = settings.maxBodyBytes ?? defaultMaxBodyBytes;
  app.use(
    '*',
    bodyLimit({
      maxSize,
      onError: (c) =>
        refuse(
          c,
          new ServedRequestError(
            `the request body is over this server's limit of ${maxSize} bytes; send less inline context, or name files under the context root`,
            { status: 413, code: 'request_too_large' },
          ),
        ),
    }),
  );
  if (settings.openai ?? true) {
    addOpenAIRoutes(app, service, { keepAliveMs: settings.keepAliveMs ?? 15_000 });
  }
  if (mcp) app.all('/mcp', (c) => mcp.handle(c.req.raw));
  app.notFound((c) =>
    errorResponse(
      new ServedRequestError(
        `no route ${c.req.method} ${c.req.path}; this server serves POST /v1/chat/completions, GET /v1/models${settings.mcp ? ', /mcp' : ''} and GET /health`,
        { status: 404 as const, code: 'not_found' },
      ),
    ),
  );
  app.onError((error) =>
    errorResponse(
      new ServedRequestError(`the server failed: ${error.message}`, {
        status: 500,
        code: 'internal_error',
        cause: error,
      }),
    ),
  );
  return { app, close: async () => mcp?.close() };
}
