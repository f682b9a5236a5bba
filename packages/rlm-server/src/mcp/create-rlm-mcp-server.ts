import { randomBytes } from 'node:crypto';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AbortedError } from '@rlm/core';
import { z } from 'zod';
import { ServedRequestError } from '../errors/served-request-error.js';
import type { RlmService, ServedAnswer, StartedRun } from '../rlm-service.js';
import { totalTokens } from '../run-progress.js';
import { serverVersion } from '../server-version.js';

/** The tool an MCP client calls to ask the RLM. */
export const rlmQueryToolName = 'rlm_query';

/** How many runs the `rlm://runs` resource and the resource list show. */
const listedRuns = 50;

const inputSchema = {
  question: z.string().describe('The question to answer over the context.'),
  text: z
    .string()
    .optional()
    .describe('Context as text: a document, a log, a transcript. Never shown to the model whole.'),
  paths: z
    .array(z.string())
    .optional()
    .describe(
      "Context as paths of files (or directories, where the server reads them) relative to the server's context root.",
    ),
  model: z
    .string()
    .optional()
    .describe("The served model id, e.g. rlm:anthropic:claude-sonnet-5-5; default: the server's."),
  max_model_calls: z
    .number()
    .optional()
    .describe("Most model calls for this run (at most the server's maximum)."),
  max_cost_usd: z
    .number()
    .optional()
    .describe("Most US dollars for this run (at most the server's maximum)."),
  max_wall_time_ms: z
    .number()
    .optional()
    .describe("Most milliseconds for this run (at most the server's maximum)."),
};

const usageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_tokens: z.number(),
  cache_write_tokens: z.number(),
  model_calls: z.number(),
});

const outputSchema = {
  answer: z.string().describe('The answer; a partial one when complete is false.'),
  complete: z.boolean().describe('False when a budget or the steps ran out before a final answer.'),
  model: z.string(),
  cost_usd: z.number().optional().describe('Absent when no model call had a price.'),
  usage: usageSchema,
  steps: z.number(),
  duration_ms: z.number(),
  run_id: z.string().optional().describe('The trace, as the resource rlm://runs/<run_id>.'),
};

/**
 * An MCP server for one {@link RlmService}: the tool `rlm_query` (a question, and context as
 * `text` or `paths` under the context root; progress notifications while it runs when the
 * client sends a progress token; the answer and its cost as the result) and, when the service
 * has a run catalog, the runs as resources (`rlm://runs`, `rlm://runs/{runId}`). Connect it to
 * any transport (stdio, streamable HTTP).
 */
export function createRlmMcpServer(service: RlmService): McpServer {
  const server = new McpServer(
    { name: 'rlm', version: serverVersion },
    {
      instructions:
        'rlm_query answers a question over a context far larger than a context window with a Recursive Language Model: the context (text, or files under the server root) stays in a sandbox the model explores with code.',
    },
  );
  server.registerTool(
    rlmQueryToolName,
    {
      title: 'Ask a Recursive Language Model',
      description:
        "Answers a question over a large context (text, or files under the server's context root) with a Recursive Language Model, which explores the context with code and calls itself on pieces. Returns the answer and what it cost. Use it instead of reading large files or long histories into the conversation.",
      inputSchema,
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args, extra): Promise<CallToolResult> => {
      const startedAt = Date.now();
      const requestId = `mcp-${randomBytes(12).toString('hex')}`;
      const progressToken = extra._meta?.progressToken;
      let started: StartedRun | undefined;
      try {
        started = await service.start({
          protocol: 'mcp',
          requestId,
          startedAt,
          model: args.model,
          query: args.question,
          inline: args.text,
          paths: args.paths,
          pathsParam: 'paths',
          limits: {
            max_model_calls: args.max_model_calls,
            max_cost_usd: args.max_cost_usd,
            max_wall_time_ms: args.max_wall_time_ms,
          },
          signal: extra.signal,
          ...(progressToken === undefined
            ? {}
            : {
                // Not awaited, and need not be: the transport writes a notification to this
                // request's SSE stream before sendNotification returns (there is no event
                // store), and every report comes before `done` settles, so each precedes the
                // result on the stream, in order.
                onProgress: (progress) => {
                  extra
                    .sendNotification({
                      method: 'notifications/progress',
                      params: {
                        progressToken,
                        progress: progress.sequence,
                        message: progress.message,
                      },
                    })
                    .catch(() => {});
                },
              }),
        });
        return toolResult(started.model, await started.done);
      } catch (error) {
        if (AbortedError.isInstance(error)) throw error;
        // A run that started logs itself when it ends.
        const failure =
          started === undefined
            ? service.refuse({ protocol: 'mcp', requestId, startedAt, model: args.model }, error)
            : ServedRequestError.from(error);
        return {
          isError: true,
          content: [{ type: 'text', text: `${failure.message} (${failure.code})` }],
        };
      }
    },
  );
  const runs = service.runs;
  if (runs) {
    server.registerResource(
      'runs',
      'rlm://runs',
      {
        title: 'Recent RLM runs',
        description: `The ${listedRuns} newest runs kept in the store, newest first: id, query, status, steps, tokens, cost, time.`,
        mimeType: 'application/json',
      },
      async (uri) => ({
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify(await runs.list(listedRuns), null, 2),
          },
        ],
      }),
    );
    server.registerResource(
      'run',
      new ResourceTemplate('rlm://runs/{runId}', {
        list: async () => ({
          resources: (await runs.list(listedRuns)).map((run) => ({
            uri: `rlm://runs/${encodeURIComponent(run.runId)}`,
            name: run.runId,
            description: `trace of: ${run.query.slice(0, 200)}`,
          })),
        }),
      }),
      {
        title: 'The trace of one RLM run',
        description: 'Every step, code block, output, host call, tokens and cost of one run.',
      },
      async (uri, variables) => {
        const runId = decodeURIComponent(String(variables.runId));
        const trace = await runs.read(runId);
        if (trace === undefined) {
          throw new McpError(
            ErrorCode.InvalidParams,
            `no run ${runId} is kept in the store; list them with rlm://runs`,
          );
        }
        return { contents: [{ uri: uri.href, mimeType: trace.mimeType, text: trace.text }] };
      },
    );
  }
  return server;
}

function toolResult(model: string, answer: ServedAnswer): CallToolResult {
  const { usage } = answer;
  const cost = usage.costUsd === undefined ? 'cost unknown' : `$${usage.costUsd.toFixed(4)}`;
  const summary = [
    cost,
    `${answer.iterations} steps`,
    `${totalTokens(usage)} tokens`,
    `${usage.modelCalls} model calls`,
    `${(answer.durationMs / 1000).toFixed(1)} s`,
    ...(answer.runId ? [`run ${answer.runId}`] : []),
  ].join(' · ');
  const content: CallToolResult['content'] = answer.incomplete
    ? [
        { type: 'text', text: `Partial answer: ${answer.incomplete.message}.\n\n${answer.answer}` },
        { type: 'text', text: summary },
      ]
    : [
        { type: 'text', text: answer.answer },
        { type: 'text', text: summary },
      ];
  return {
    ...(answer.incomplete ? { isError: true } : {}),
    content,
    structuredContent: {
      answer: answer.answer,
      complete: answer.incomplete === undefined,
      model,
      ...(usage.costUsd === undefined ? {} : { cost_usd: usage.costUsd }),
      usage: {
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
        cache_read_tokens: usage.cacheReadTokens,
        cache_write_tokens: usage.cacheWriteTokens,
        model_calls: usage.modelCalls,
      },
      steps: answer.iterations,
      duration_ms: Math.round(answer.durationMs),
      ...(answer.runId === undefined ? {} : { run_id: answer.runId }),
    },
  };
}
