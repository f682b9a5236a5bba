import { escapeControlCharacters } from '@rlm/core';
import type { CliOutput } from '../cli-io.js';
import { ContextLoadError } from '../context-load-error.js';
import { UsageError } from '../usage-error.js';
import { describeRunError } from './describe-run-error.js';
import { formatJsonFailure, jsonFailureReport } from './json-failure-report.js';

/**
 * Prints what a command failed with and resolves the exit code: a usage or context error is
 * its one line and 2 (nothing was sent to a model); anything else goes through
 * {@link reportFailure}. With `json`, a JSON failure report goes to stdout as well.
 */
export function reportCommandError(
  error: unknown,
  io: { readonly json: boolean; readonly stdout: CliOutput; readonly stderr: CliOutput },
): number {
  const { json, stdout, stderr } = io;
  if (UsageError.isInstance(error) || ContextLoadError.isInstance(error)) {
    stderr.write(`rlm: ${error.message}\n`);
    if (json) stdout.write(formatJsonFailure(jsonFailureReport(error, { message: error.message })));
    return 2;
  }
  if (json) stdout.write(formatJsonFailure(jsonFailureReport(error)));
  return reportFailure(error, stderr);
}

/** Prints a failed query's line (and partial answer) on stderr; returns the exit code. */
export function reportFailure(error: unknown, stderr: CliOutput): number {
  const failure = describeRunError(error);
  const shown = (text: string) => (stderr.isTTY ? escapeControlCharacters(text) : text);
  stderr.write(`rlm: ${shown(failure.message)}\n`);
  if (failure.partialAnswer?.trim()) {
    stderr.write(`rlm: partial answer (not final):\n${shown(failure.partialAnswer.trimEnd())}\n`);
  }
  return failure.exitCode;
}

/** Whether `--json` appears among the flags (before a `--` that ends them). */
export function jsonRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}
