import {
  addModelCallUsage,
  emptyRunUsage,
  eventExcerpt,
  type RlmEvent,
  type RunUsage,
} from '@rlm/core';
import { formatCost, formatRunTotals, formatTokens } from '../../output/format-run-totals.js';
import { ToolActivityTally } from './tool-activity-tally.js';

/** How progress is rendered. */
export interface EventRendererOptions {
  /** Receives whole lines, each ending in `\n`. */
  readonly write: (text: string) => void;
  /** ANSI colours and dimming; off for pipes, files and `NO_COLOR`. */
  readonly color: boolean;
  /** Longest line in characters (indentation included); longer ones end in `…`. Default 160. */
  readonly width?: number;
  /**
   * Receives what the run is waiting on, for a live status line on a terminal (`step 3 ·
   * waiting for the model`, `llm_query 23/40`), or `undefined` when nothing is pending.
   */
  readonly status?: (text: string | undefined) => void;
  /**
   * The most model calls in flight at once (`--max-concurrency`, or the core's default): with
   * the number allowed now, which the API's 429s lower, it shows on the status line while
   * `llm_query` calls run (`llm_query 23/40 · 32 at once, max 64`). Unset: not shown.
   */
  readonly maxConcurrency?: number;
  /**
   * Show a step's prose line by line as the model writes it (`text-delta` events from a
   * streaming model), instead of all at once when the step's text is complete: for a terminal.
   * The lines are the same either way. Default false.
   */
  readonly streamText?: boolean;
}

/** A step's prose being shown as it streams in. */
interface LiveText {
  /** Text received after the last complete line. */
  partial: string;
  /** The fence (three or more backticks) of the code block being skipped, if inside one. */
  fence: string | undefined;
  /** Prose lines shown so far, and those past the limit. */
  shown: number;
  hidden: number;
  /** A blank line waits to be shown until prose follows it (never two, never at the ends). */
  blankPending: boolean;
}

/** Host calls of one block: how many started, settled and failed, and the first failures. */
interface FanOut {
  started: number;
  settled: number;
  readonly failures: string[];
  failed: number;
}

/** Failed host calls of one block shown on their own lines; the rest are counted. */
const failureLinesShown = 3;

type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'magenta' | 'cyan';

const styleCodes: Readonly<Record<Style, readonly [number, number]>> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  magenta: [35, 39],
  cyan: [36, 39],
};

const maxLines = { text: 6, code: 12, output: 8 } as const;
/** A fenced code block, up to its closing fence or the end of the text. */
const fencedBlock =
  /^[ \t]*(`{3,})[^\n]*(?:\n[\s\S]*?)??(?:\n[ \t]*\1[ \t]*(?=\n|(?![\s\S]))|(?![\s\S]))/gm;
const controlCharacters = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Host functions whose calls are counted per block, on the status line while they run and in one
 * line when the block ends (`sub_rlm` shows as a child call).
 */
const renderedBridgeCalls = new Set(['llm_query', 'llm_query_batched']);

/**
 * Returns a function that renders each `queryStream` event as compact progress lines:
 * steps, the model's prose (code fences removed), code, execution output, sub-calls, durable-tool
 * activity (reused, saved, failed: one line per method and kind per block), warnings,
 * and after each step its tokens, cache reads, cost, time and the run's cost so far; the root's
 * closing line carries the run's totals.
 * Children are indented two spaces per depth. The root's answer and error are not rendered:
 * the CLI prints them itself. Control characters from model output are stripped, so a model
 * cannot drive the terminal.
 */
export function createEventRenderer(options: EventRendererOptions): (event: RlmEvent) => void {
  const width = Math.max(options.width ?? 160, 40);
  const paint = (style: Style, text: string): string => {
    if (!options.color) return text;
    const [open, close] = styleCodes[style];
    return `\u001b[${open}m${text}\u001b[${close}m`;
  };

  /** Prose streaming in, by call id. */
  const live = new Map<string, LiveText>();

  /** Usage of each call's running step, and of the whole run so far. */
  const stepUsage = new Map<string, RunUsage>();
  let runUsage = emptyRunUsage();
  /** Calls waiting for their model, by call id: the step they are at. */
  const waiting = new Map<string, number>();
  /** Counted host calls of each call's running block. */
  const fanOuts = new Map<string, FanOut>();
  /** Durable-tool activity of each call's running block. */
  const toolTallies = new Map<string, ToolActivityTally>();
  /** Model calls allowed at once now (`concurrency` events lower it after 429s), and the cap. */
  let concurrency =
    options.maxConcurrency === undefined
      ? undefined
      : { level: options.maxConcurrency, cap: options.maxConcurrency };
  let shownStatus: string | undefined;
  const updateStatus = () => {
    if (!options.status) return;
    let text: string | undefined;
    let started = 0;
    let settled = 0;
    for (const fanOut of fanOuts.values()) {
      started += fanOut.started;
      settled += fanOut.settled;
    }
    const writing = [...toolTallies.values()].find((tally) => tally.writing)?.writing;
    if (started > settled) {
      const atOnce = concurrency ? ` · ${concurrency.level} at once, max ${concurrency.cap}` : '';
      text = `llm_query ${settled}/${started}${atOnce}`;
    } else if (writing) text = writing;
    else if (waiting.size > 0) {
      const [first] = waiting.values();
      text =
        waiting.size === 1
          ? `step ${first} · waiting for the model`
          : `waiting for the model (${waiting.size} calls)`;
    }
    if (text !== shownStatus) {
      shownStatus = text;
      options.status(text);
    }
  };

  return (event) => {
    render(event);
    updateStatus();
  };

  function render(event: RlmEvent): void {
    const indent = '  '.repeat(event.depth);
    /** Writes `lines`, each cut to the width, the first `limit` only, then a count of the rest. */
    const emit = (style: Style, prefix: string, lines: readonly string[], limit = lines.length) => {
      const shown = lines.slice(0, limit);
      if (lines.length > limit) shown.push(`… ${lines.length - limit} more lines`);
      let text = '';
      for (const line of shown) {
        const full = `${indent}${prefix}${clean(line)}`;
        const cut = full.length > width ? `${full.slice(0, width - 1)}…` : full;
        text += `${paint(style, cut)}\n`;
      }
      options.write(text);
    };

    /** One complete line of streamed text: prose is shown (up to the limit), code is not. */
    const showLiveLine = (state: LiveText, line: string) => {
      const fence = /^[ \t]*(`{3,})/.exec(line)?.[1];
      if (state.fence !== undefined) {
        if (fence !== undefined && line.trim() === state.fence) state.fence = undefined;
        return;
      }
      if (fence !== undefined) {
        // A code block between prose lines leaves a blank line, as in the rendering at once.
        state.fence = fence;
        state.blankPending = state.shown + state.hidden > 0;
        return;
      }
      if (line.trim() === '') {
        state.blankPending = state.shown + state.hidden > 0;
        return;
      }
      const pending = state.blankPending ? ['', line] : [line];
      state.blankPending = false;
      for (const text of pending) {
        if (state.shown < maxLines.text) {
          state.shown += 1;
          emit('dim', '  ', [text]);
        } else state.hidden += 1;
      }
    };

    /** Writes the durable-tool lines of the call's block, if any; whether there were any. */
    const flushTools = (callId: string): boolean => {
      const lines = toolTallies.get(callId)?.lines() ?? [];
      toolTallies.delete(callId);
      for (const line of lines) {
        if (line.kind === 'failed') emit('red', '  ✗ ', [oneLine(line.text)]);
        else emit(line.kind === 'saved' ? 'green' : 'dim', '  ⇢ ', [oneLine(line.text)]);
      }
      return lines.length > 0;
    };

    switch (event.type) {
      case 'call-start':
        if (event.depth > 0) emit('magenta', '↳ sub_rlm: ', [oneLine(event.query)]);
        else {
          stepUsage.clear();
          runUsage = emptyRunUsage();
        }
        return;
      case 'usage': {
        if (event.requestId === undefined) waiting.delete(event.callId);
        runUsage = addModelCallUsage(runUsage, event.usage, event.costUsd);
        const step = stepUsage.get(event.callId);
        if (step) stepUsage.set(event.callId, addModelCallUsage(step, event.usage, event.costUsd));
        return;
      }
      case 'step-complete': {
        const step = stepUsage.get(event.callId);
        stepUsage.delete(event.callId);
        if (!step || step.modelCalls === 0) return;
        emit('dim', '  · ', [
          `${formatTokens(step)} · ${formatCost(step)} · ${(event.durationMs / 1000).toFixed(1)} s · run so far ${formatCost(runUsage)}`,
        ]);
        return;
      }
      case 'step-start':
        waiting.set(event.callId, event.iteration);
        stepUsage.set(event.callId, emptyRunUsage());
        emit(event.depth === 0 ? 'bold' : 'dim', '● ', [`step ${event.iteration}`]);
        return;
      case 'text-delta': {
        if (!options.streamText) return;
        let state = live.get(event.callId);
        if (!state) {
          state = { partial: '', fence: undefined, shown: 0, hidden: 0, blankPending: false };
          live.set(event.callId, state);
        }
        state.partial += event.text;
        const lines = state.partial.split('\n');
        state.partial = lines.pop() ?? '';
        for (const line of lines) showLiveLine(state, line);
        return;
      }
      case 'text': {
        const state = live.get(event.callId);
        if (state) {
          live.delete(event.callId);
          if (state.partial !== '') showLiveLine(state, state.partial);
          if (state.hidden > 0) emit('dim', '  ', [`… ${state.hidden} more lines`]);
          return;
        }
        const prose = event.text
          .replace(fencedBlock, '')
          .replace(/\n{3,}/g, '\n\n')
          .trim();
        if (prose !== '') emit('dim', '  ', prose.split('\n'), maxLines.text);
        return;
      }
      case 'code':
        emit('cyan', '  ┃ ', event.code.replace(/\n+$/, '').split('\n'), maxLines.code);
        return;
      case 'execution': {
        // The output and the error arrive apart; the error is shown on its own line.
        const output = event.output.replace(/\n+$/, '');
        if (output !== '') emit('dim', '  → ', output.split('\n'), maxLines.output);
        const fanOut = fanOuts.get(event.callId);
        fanOuts.delete(event.callId);
        if (fanOut) {
          const failed = fanOut.failed > 0 ? `, ${fanOut.failed} failed` : '';
          emit('dim', '  ⇢ ', [
            `${plural(fanOut.started, 'llm_query call')}: ${fanOut.settled - fanOut.failed} answered${failed}`,
          ]);
          for (const failure of fanOut.failures) emit('red', '  ✗ ', [failure]);
          if (fanOut.failed > fanOut.failures.length) {
            emit('red', '  ✗ ', [`… ${fanOut.failed - fanOut.failures.length} more failed`]);
          }
        }
        const tools = flushTools(event.callId);
        const quiet = !fanOut && !tools;
        if (event.error !== undefined) emit('red', '  ✗ ', [event.error.split('\n')[0]!]);
        else if (output === '' && quiet) {
          emit('dim', '  → ', [`(no output, ${event.durationMs} ms)`]);
        }
        return;
      }
      case 'bridge-call': {
        if (!renderedBridgeCalls.has(event.name)) return;
        const fanOut = fanOuts.get(event.callId) ?? {
          started: 0,
          settled: 0,
          failed: 0,
          failures: [],
        };
        fanOut.started += 1;
        fanOuts.set(event.callId, fanOut);
        return;
      }
      case 'bridge-result': {
        const fanOut = fanOuts.get(event.callId);
        if (!renderedBridgeCalls.has(event.name) || !fanOut) return;
        fanOut.settled += 1;
        if (!event.ok) {
          fanOut.failed += 1;
          if (fanOut.failures.length < failureLinesShown) {
            fanOut.failures.push(
              `${event.name} failed: ${oneLine(event.error ?? 'unknown error')}`,
            );
          }
        }
        return;
      }
      case 'durable-tool': {
        const tally = toolTallies.get(event.callId) ?? new ToolActivityTally();
        tally.add(event);
        toolTallies.set(event.callId, tally);
        return;
      }
      case 'warning':
        emit('yellow', '⚠ ', [oneLine(event.message)]);
        return;
      case 'final':
        waiting.delete(event.callId);
        fanOuts.delete(event.callId);
        // A block that finished the call (SUBMIT in code) may have used tools.
        flushTools(event.callId);
        if (event.depth > 0)
          emit('green', '✓ sub_rlm answered: ', [oneLine(preview(event.answer))]);
        else {
          emit('green', '✓ ', [
            `answered after ${plural(event.iterations, 'step')} · ${formatRunTotals(event.usage)}`,
          ]);
        }
        return;
      case 'call-error':
        waiting.delete(event.callId);
        fanOuts.delete(event.callId);
        flushTools(event.callId);
        if (event.depth > 0) emit('red', '✗ sub_rlm failed: ', [oneLine(event.message)]);
        return;
      case 'resumed': {
        const lost = event.lost.length > 0 ? `; lost: ${event.lost.join(', ')}` : '';
        emit('magenta', '↻ ', [
          `resumed after step ${event.iteration} (restored: ${event.restored.join(', ') || 'none'}${lost})`,
        ]);
        return;
      }
      case 'variable-sync-failed':
        emit('yellow', '⚠ ', [`could not list the sandbox's variables: ${oneLine(event.message)}`]);
        return;
      case 'model-retry':
        // Printed by the CLI as its own `rlm:` line, even with --quiet.
        return;
      case 'concurrency': {
        concurrency = { level: event.level, cap: event.cap };
        if (event.reason === 'rate-limited') {
          const paused =
            event.pausedMs === undefined
              ? ''
              : `; none starts for ${(event.pausedMs / 1000).toFixed(1)} s`;
          emit('yellow', '⚠ ', [
            `rate-limited (429): ${plural(event.level, 'model call')} at once now, max ${event.cap}${paused}`,
          ]);
        } else if (event.level === event.cap) {
          emit('dim', '  ', [`model calls at once back to ${event.cap}`]);
        }
        return;
      }
      case 'checkpoint':
      case 'variables-updated':
      // Whole requests and responses are for the trace.
      case 'model-call':
        return;
    }
  }
}

function clean(text: string): string {
  return text.replace(/\t/g, '  ').replace(controlCharacters, '');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function preview(answer: unknown): string {
  return eventExcerpt(answer, 2_000);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
