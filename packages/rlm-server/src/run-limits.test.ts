import { describe, expect, test } from 'vitest';
import { ServedRequestError } from './errors/served-request-error.js';
import { ServerSettingsError } from './errors/server-settings-error.js';
import { checkRunLimits, defaultRunLimits, resolveRunLimits } from './run-limits.js';

const maxima = { maxModelCalls: 50, maxCostUsd: 1, maxWallTimeMs: 60_000 };

describe('resolveRunLimits', () => {
  test('a request without limits gets the maxima', () => {
    expect(resolveRunLimits({}, maxima)).toEqual(maxima);
    expect(resolveRunLimits({ max_cost_usd: null }, defaultRunLimits)).toEqual(defaultRunLimits);
  });

  test('a request may lower each limit', () => {
    expect(
      resolveRunLimits({ max_model_calls: 3, max_cost_usd: 0.25, max_wall_time_ms: 1000 }, maxima),
    ).toEqual({ maxModelCalls: 3, maxCostUsd: 0.25, maxWallTimeMs: 1000 });
  });

  test('a cost limit without a server maximum is taken as given', () => {
    expect(resolveRunLimits({ max_cost_usd: 5 }, defaultRunLimits).maxCostUsd).toBe(5);
  });

  test.each([
    [
      { max_model_calls: 51 },
      "max_model_calls 51 is over this server's maximum of 50",
      'limit_over_maximum',
    ],
    [{ max_cost_usd: 1.01 }, 'max_cost_usd 1.01 is over', 'limit_over_maximum'],
    [{ max_wall_time_ms: 60_001 }, 'max_wall_time_ms 60001 is over', 'limit_over_maximum'],
    [
      { max_model_calls: 0 },
      'max_model_calls must be a positive whole number (got 0)',
      'invalid_limit',
    ],
    [{ max_model_calls: 2.5 }, 'must be a positive whole number', 'invalid_limit'],
    [{ max_model_calls: '5' }, 'must be a positive whole number (got "5")', 'invalid_limit'],
    [{ max_cost_usd: -1 }, 'max_cost_usd must be a positive number', 'invalid_limit'],
    [{ max_cost_usd: Number.NaN }, 'max_cost_usd must be a positive number', 'invalid_limit'],
    [{ max_wall_time_ms: {} }, 'max_wall_time_ms must be', 'invalid_limit'],
  ])('%j is a 400', (requested, message, code) => {
    let caught: unknown;
    try {
      resolveRunLimits(requested, maxima);
    } catch (error) {
      caught = error;
    }
    expect(ServedRequestError.isInstance(caught)).toBe(true);
    const error = caught as ServedRequestError;
    expect(error.status).toBe(400);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
    expect(error.param).toBe(Object.keys(requested)[0]);
  });
});

describe('checkRunLimits', () => {
  test('fills the defaults and keeps what is set', () => {
    expect(checkRunLimits()).toEqual(defaultRunLimits);
    expect(checkRunLimits({ maxCostUsd: 2, maxModelCalls: undefined })).toEqual({
      ...defaultRunLimits,
      maxCostUsd: 2,
    });
  });

  test.each([{ maxModelCalls: 0 }, { maxWallTimeMs: 1.5 }, { maxCostUsd: -2 }])(
    '%j is a settings error',
    (limits) => {
      expect(() => checkRunLimits(limits)).toThrow(ServerSettingsError);
    },
  );
});
