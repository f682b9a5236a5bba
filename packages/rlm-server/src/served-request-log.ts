import type { RunUsage } from '@rlm/core';
import { totalTokens } from './run-progress.js';

/**
 * How a served request ended: `answered`; `incomplete` (a budget or the iterations ran out: the
 * partial answer was sent); `rejected` (a bad request, a wrong token, a full server: nothing
 * ran); `failed` (the run failed: model API, sandbox); `cancelled` (the client went away or
 * cancelled, and the run was stopped); `cut` (the server shut down before the run ended).
 */
export type ServedOutcome = 'answered' | 'incomplete' | 'rejected' | 'failed' | 'cancelled' | 'cut';

/** One served request, as the server logs it: one entry per request. */
export interface ServedRequestLog {
  /** When it arrived, in milliseconds since the epoch. */
  readonly startedAt: number;
  /** The request's id (`chatcmpl-...` over HTTP, `mcp-...` over MCP). */
  readonly requestId: string;
  /** `openai` (`/v1/chat/completions`) or `mcp` (the `rlm_query` tool). */
  readonly protocol: 'openai' | 'mcp';
  /** The model id it ran on, when one was resolved. */
  readonly model?: string;
  /** Whether the answer was streamed. */
  readonly stream?: boolean;
  /**
   * The HTTP status of the outcome (200, or the error's); 499 when the client went away. A
   * streamed response has sent 200 before the run ended.
   */
  readonly status: number;
  readonly outcome: ServedOutcome;
  /** What the run spent, when it ran. */
  readonly usage?: RunUsage;
  /** From arrival to the last byte, in milliseconds. */
  readonly durationMs: number;
  /** The run's id in the trace store, when one was kept. */
  readonly runId?: string;
  /** The error's code (`model_not_found`, `model_server`, ...), when it failed. */
  readonly error?: string;
}

/**
 * One `key=value` line (logfmt) for a log entry, without a newline:
 * `time=2026-11-28T10:00:00.000Z id=chatcmpl-1f… protocol=openai model=rlm:anthropic:claude-sonnet-5-5
 * stream=false status=200 outcome=answered tokens=1834 cost_usd=0.0121 ms=5120 run=20261128-100000-3fa9c1`.
 * Values with spaces or quotes are JSON-quoted; `cost_usd=unknown` when no model call had a price.
 */
export function formatServedRequestLog(entry: ServedRequestLog): string {
  const fields: [string, string | number | boolean | undefined][] = [
    ['time', new Date(entry.startedAt).toISOString()],
    ['id', entry.requestId],
    ['protocol', entry.protocol],
    ['model', entry.model],
    ['stream', entry.stream],
    ['status', entry.status],
    ['outcome', entry.outcome],
    ['tokens', entry.usage && totalTokens(entry.usage)],
    ['model_calls', entry.usage?.modelCalls],
    [
      'cost_usd',
      entry.usage &&
        (entry.usage.costUsd === undefined ? 'unknown' : entry.usage.costUsd.toFixed(6)),
    ],
    ['ms', Math.round(entry.durationMs)],
    ['run', entry.runId],
    ['error', entry.error],
  ];
  return fields
    .filter((field): field is [string, string | number | boolean] => field[1] !== undefined)
    .map(([key, value]) => `${key}=${quote(String(value))}`)
    .join(' ');
}

function quote(value: string): string {
  return /^[^\s"=\\]+$/.test(value) ? value : JSON.stringify(value);
}
