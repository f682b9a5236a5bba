import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RlmService } from '../rlm-service.js';
import { createRlmMcpServer } from './create-rlm-mcp-server.js';

/** Bounds of {@link McpHttpSessions}. */
export interface McpHttpSessionLimits {
  /** Sessions open at once; an initialization past it is answered 503. Default 256. */
  readonly maxSessions?: number;
  /** A session with no request for this long (and none running) is closed. Default 10 minutes. */
  readonly idleMs?: number;
}

interface Session {
  readonly server: McpServer;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  lastActive: number;
  running: number;
}

/**
 * MCP over streamable HTTP with sessions: an `initialize` request opens one (its id comes back in
 * `Mcp-Session-Id`); later requests with that header go to the same server, so that a client's
 * `notifications/cancelled` reaches the call it cancels. `DELETE` closes a session, and closing
 * one cancels its running calls.
 */
export class McpHttpSessions {
  readonly #service: RlmService;
  readonly #sessions = new Map<string, Session>();
  readonly #maxSessions: number;
  readonly #idleMs: number;
  readonly #sweep: ReturnType<typeof setInterval>;

  constructor(service: RlmService, limits: McpHttpSessionLimits = {}) {
    this.#service = service;
    this.#maxSessions = limits.maxSessions ?? 256;
    this.#idleMs = limits.idleMs ?? 10 * 60_000;
    this.#sweep = setInterval(() => this.#closeIdle(), Math.min(this.#idleMs, 60_000));
    this.#sweep.unref?.();
  }

  /** Sessions open now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Answers one request to `/mcp`. */
  async handle(request: Request): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const session = this.#sessions.get(sessionId);
      if (session === undefined) {
        return jsonRpcError(404, -32001, 'Session not found; initialize a new one');
      }
      return this.#forward(session, request);
    }
    if (this.#sessions.size >= this.#maxSessions) {
      return jsonRpcError(503, -32000, 'too many MCP sessions are open; retry later');
    }
    const server = createRlmMcpServer(this.#service);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    const session: Session = { server, transport, lastActive: Date.now(), running: 0 };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    const response = await this.#forward(session, request);
    // Anything but an initialization (answered 400 by the transport) leaves no session.
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  /** Closes every session; their running calls are cancelled. */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close()));
  }

  async #forward(session: Session, request: Request): Promise<Response> {
    session.running++;
    session.lastActive = Date.now();
    let response: Response;
    try {
      response = await session.transport.handleRequest(request);
    } catch (error) {
      session.running--;
      throw error;
    }
    if (response.body === null) {
      session.running--;
      return response;
    }
    // The request counts as running until its response stream ends.
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const ended = () => {
      session.running--;
      session.lastActive = Date.now();
    };
    response.body.pipeTo(writable).then(ended, ended);
    return new Response(readable, response);
  }

  #closeIdle(): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions) {
      if (session.running === 0 && now - session.lastActive >= this.#idleMs) {
        this.#sessions.delete(id);
        void session.server.close();
      }
    }
  }
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
