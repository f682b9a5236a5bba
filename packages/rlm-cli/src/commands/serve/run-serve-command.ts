import { startRlmHttpServer } from '@rlm/server';
import type { RunCliOptions } from '../../cli-io.js';
import { UsageError } from '../../usage-error.js';
import { createCliRlmService } from './create-cli-rlm-service.js';
import { parseServeArguments, type ServeOptions } from './parse-serve-arguments.js';
import { serveHelpText } from './serve-help-text.js';
import { serveUntilStopped } from './serve-until-stopped.js';

/**
 * `rlm serve`: serves the RLM over HTTP until SIGTERM or Ctrl-C, then shuts down gracefully.
 * Resolves to the exit code (0); rejects with {@link UsageError} for bad flags, a missing key or
 * a port in use, before anything listens.
 */
export async function runServeCommand(argv: readonly string[], io: RunCliOptions): Promise<number> {
  const command = parseServeArguments(argv, io.env, 'serve');
  if (command.kind === 'help') {
    io.stdout.write(serveHelpText());
    return 0;
  }
  return serveOverHttp(command.options, io, { openai: true });
}

/**
 * Serves the options' RLM over HTTP (the OpenAI-compatible routes, MCP at `/mcp`, or both) until
 * stopped; `rlm serve` and `rlm mcp --http`.
 */
export async function serveOverHttp(
  options: ServeOptions,
  io: RunCliOptions,
  routes: { readonly openai: boolean },
): Promise<number> {
  const { service, store } = await createCliRlmService(options, io);
  try {
    const server = await startRlmHttpServer({
      service,
      host: options.host,
      port: options.port,
      ...(options.token === undefined ? {} : { token: options.token }),
      maxBodyBytes: options.maxBodyBytes,
      openai: routes.openai,
      mcp: options.mcp,
    }).catch((error: NodeJS.ErrnoException) => {
      if (
        error.code === 'EADDRINUSE' ||
        error.code === 'EACCES' ||
        error.code === 'EADDRNOTAVAIL'
      ) {
        throw new UsageError(
          `cannot listen on ${options.host}:${options.port} (${error.code}); pass another --port or --host`,
          { cause: error },
        );
      }
      throw error;
    });
    const models = service.models.ids.slice(1).join(', ');
    const where = [
      ...(routes.openai ? [`${server.url}/v1 (OpenAI-compatible)`] : []),
      ...(options.mcp ? [`${server.url}/mcp (MCP)`] : []),
    ].join(' and ');
    io.stderr.write(
      `rlm: serving ${models}${options.anyModel ? ' and any rlm:<provider>:<id>' : ''} on ${where}${options.contextRoot === undefined ? '' : `, files under ${service.contextRoot?.directory}`}; stop with Ctrl-C or SIGTERM\n`,
    );
    await serveUntilStopped(server, {
      ...io,
      graceMs: options.shutdownGraceMs,
      running: () => service.concurrency.running,
    });
    io.stderr.write('rlm: stopped\n');
    return 0;
  } finally {
    await store?.close().catch(() => {});
  }
}
