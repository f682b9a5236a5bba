import { serveMcpOverStdio } from '@rlm/server';
import type { RunCliOptions } from '../../cli-io.js';
import { createCliRlmService } from '../serve/create-cli-rlm-service.js';
import { parseServeArguments } from '../serve/parse-serve-arguments.js';
import { serveOverHttp } from '../serve/run-serve-command.js';
import { mcpHelpText } from '../serve/serve-help-text.js';
import { serveUntilStopped } from '../serve/serve-until-stopped.js';

/**
 * `rlm mcp`: an MCP server over stdio until the client closes stdin (or SIGTERM, Ctrl-C), or over
 * streamable HTTP with `--http`. Resolves to the exit code (0); rejects with `UsageError` for bad
 * flags or a missing key, before the protocol starts.
 */
export async function runMcpCommand(argv: readonly string[], io: RunCliOptions): Promise<number> {
  const command = parseServeArguments(argv, io.env, 'mcp');
  if (command.kind === 'help') {
    io.stdout.write(mcpHelpText());
    return 0;
  }
  const options = command.options;
  if (options.mcp) return serveOverHttp({ ...options }, io, { openai: false });
  const { service, store } = await createCliRlmService(options, io);
  try {
    const session = await serveMcpOverStdio(service, { stdin: io.stdin, stdout: io.stdout });
    io.stderr.write(
      `rlm: MCP server on stdio: tool rlm_query on ${service.models.ids.slice(1).join(', ')}, files under ${service.contextRoot?.directory}\n`,
    );
    await serveUntilStopped(
      {
        close: async (closing) => {
          await session.close();
          await service.close(closing);
        },
      },
      {
        ...io,
        graceMs: 0,
        running: () => service.concurrency.running,
        ended: session.closed,
      },
    );
    return 0;
  } finally {
    await store?.close().catch(() => {});
  }
}
