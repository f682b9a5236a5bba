import { ServedRequestError } from './errors/served-request-error.js';
import { ServerSettingsError } from './errors/server-settings-error.js';

/** The budget of one served run; every model call of its tree counts. */
export interface RunLimits {
  /** Model calls (root, children, `llm_query`), a positive whole number. */
  readonly maxModelCalls: number;
  /**
   * US dollars, a positive number; `undefined` for no cost budget. A run with one needs a price
   * for its models (built in, or `prices` in the RLM settings).
   */
  readonly maxCostUsd?: number;
  /** Wall time in milliseconds, a positive whole number. */
  readonly maxWallTimeMs: number;
}

/** The limits a request asks for, as it sent them (checked by {@link resolveRunLimits}). */
export interface RequestedRunLimits {
  readonly max_model_calls?: unknown;
  readonly max_cost_usd?: unknown;
  readonly max_wall_time_ms?: unknown;
}

/** Server maxima unless set: the CLI's per-query defaults (500 model calls, 30 minutes). */
export const defaultRunLimits: RunLimits = { maxModelCalls: 500, maxWallTimeMs: 30 * 60_000 };

/**
 * The server's maxima: `limits` over {@link defaultRunLimits}.
 *
 * @throws {ServerSettingsError} for a limit that is not a positive number (whole for calls and time).
 */
export function checkRunLimits(limits: Partial<RunLimits> = {}): RunLimits {
  const merged = { ...defaultRunLimits, ...definedOnly(limits) };
  for (const [name, value] of Object.entries(merged)) {
    const whole = name !== 'maxCostUsd';
    if (!isPositive(value, whole)) {
      throw new ServerSettingsError(
        `@rlm/server: limits.${name} must be a positive ${whole ? 'whole number' : 'number'} (got ${String(value)})`,
      );
    }
  }
  return merged;
}

/**
 * The limits of one run: each one the request gives, else the server's maximum. A request may
 * lower a limit, never raise it past the maximum.
 *
 * @throws {ServedRequestError} 400 (`invalid_limit`, `limit_over_maximum`) naming the field.
 */
export function resolveRunLimits(requested: RequestedRunLimits, maxima: RunLimits): RunLimits {
  const maxModelCalls = requestedLimit(
    requested.max_model_calls,
    'max_model_calls',
    maxima.maxModelCalls,
    true,
  );
  const maxCostUsd = requestedLimit(
    requested.max_cost_usd,
    'max_cost_usd',
    maxima.maxCostUsd,
    false,
  );
  const maxWallTimeMs = requestedLimit(
    requested.max_wall_time_ms,
    'max_wall_time_ms',
    maxima.maxWallTimeMs,
    true,
  );
  return {
    maxModelCalls: maxModelCalls ?? maxima.maxModelCalls,
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    maxWallTimeMs: maxWallTimeMs ?? maxima.maxWallTimeMs,
  };
}

function requestedLimit(
  value: unknown,
  name: string,
  maximum: number | undefined,
  whole: boolean,
): number | undefined {
  if (value === undefined || value === null) return maximum;
  if (!isPositive(value, whole)) {
    throw new ServedRequestError(
      `${name} must be a positive ${whole ? 'whole number' : 'number'} (got ${JSON.stringify(value) ?? typeof value})`,
      { status: 400, code: 'invalid_limit', param: name },
    );
  }
  if (maximum !== undefined && value > maximum) {
    throw new ServedRequestError(
      `${name} ${value} is over this server's maximum of ${maximum}; ask for ${maximum} or less`,
      { status: 400, code: 'limit_over_maximum', param: name },
    );
  }
  return value;
}

function isPositive(value: unknown, whole: boolean): value is number {
  return (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value > 0 &&
    (!whole || Number.isSafeInteger(value))
  );
}

function definedOnly<Fields extends object>(record: Fields): Partial<Fields> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== undefined),
  ) as Partial<Fields>;
}
