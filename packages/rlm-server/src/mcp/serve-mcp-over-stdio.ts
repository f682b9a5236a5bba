import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RlmService } from '../rlm-service.js';
import { createRlmMcpServer } from './create-rlm-mcp-server.js';

/** An MCP session over a pair of streams. */
export interface McpStdioSession {
  /** Resolves when the client closed its end (stdin ended) or the session was closed. */
  readonly closed: Promise<void>;
  /** Ends the session: running `rlm_query` calls are cancelled. Idempotent. */
  close(): Promise<void>;
}

/**
 * Serves {@link createRlmMcpServer} over stdio: JSON-RPC messages one per line on `stdin` and
 * `stdout` (`process.stdin` and `process.stdout` by default), as MCP clients run a server they
 * start (`{"command": "npx", "args": ["rlm", "mcp"]}`). Nothing else may write to `stdout`.
 * When `stdin` ends, the session closes and its running calls are cancelled.
 */
export async function serveMcpOverStdio(
  service: RlmService,
  io: { readonly stdin?: NodeJS.ReadableStream; readonly stdout?: NodeJS.WritableStream } = {},
): Promise<McpStdioSession> {
  const stdin = io.stdin ?? process.stdin;
  const server = createRlmMcpServer(service);
  const transport = new StdioServerTransport(
    stdin as NodeJS.ReadStream,
    (io.stdout ?? process.stdout) as NodeJS.WriteStream,
  );
  let close!: () => Promise<void>;
  const closed = new Promise<void>((resolve) => {
    let closing: Promise<void> | undefined;
    close = () => {
      closing ??= server.close().finally(resolve);
      return closing;
    };
  });
  stdin.once('end', () => void close());
  transport.onclose = () => void close();
  await server.connect(transport);
  return { closed, close };
}
