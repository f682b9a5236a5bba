import type {
  GenerateOptions,
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  Message,
} from '@rlm/core';
import { ReplayDivergedError } from './errors/replay-diverged-error.js';
import { expandModelCalls } from './expand-model-calls.js';
import type { TraceCall, TraceDocument, TraceModelCall } from './trace-document.js';
import { traceFromJsonLines } from './trace-json-lines.js';

/** Settings of {@link createReplayModel}. */
export interface ReplayModelSettings {
  /** The recorded run: its trace document, or its JSON lines (`rlm trace --jsonl`). */
  readonly trace: TraceDocument | string;
  /** How error messages name the recording, e.g. its file. Default `the recording`. */
  readonly source?: string;
}

/** What the model of {@link createReplayModel} adds to a `LanguageModel`. */
export interface ReplayModel extends LanguageModel {
  /** Recorded responses not given yet. */
  readonly unused: number;
  /** Responses the recording holds. */
  readonly recorded: number;
}

/** The model id of every replay model: priced nowhere, so a replay costs nothing. */
export const replayModelId = 'replay';

/** One recorded exchange. */
interface Recording {
  /** Where the request was in the recorded run, for messages. */
  readonly label: string;
  readonly messages: readonly Message[];
  readonly key: string;
  readonly response: GenerateResult;
  /** When it was asked in the recorded run, for the order. */
  readonly askedAt: number;
  /** Whether the recorded request offered tools (the SUBMIT tool). */
  readonly offeredTools: boolean;
  used: boolean;
}

/** Characters of each side shown around a difference. */
const excerptChars = 40;

/**
 * A `LanguageModel` that answers with the responses a recorded run got, request by request: a
 * run over the same context with the same code path makes the same requests and gets the same
 * answers, with no API, no key and no cost. A request is matched to a recorded one by its
 * messages (the conversation: the context description, the model's earlier answers, what its
 * code printed, a sub-call's prompt), whatever the order concurrent requests arrive in; the
 * system prompt and the tool definitions are not compared, so a version that only rewords its
 * instructions still replays. Each recorded response is given once.
 *
 * A request the recording has no unused answer for rejects with a {@link ReplayDivergedError}
 * saying which request it was, which recorded request is closest and where the two differ; from
 * then on every request rejects with that same error, so the run ends on the first divergence.
 *
 * @throws {TraceCorruptError} when `trace` is JSON lines that do not read as a trace.
 */
export function createReplayModel(settings: ReplayModelSettings): ReplayModel {
  const trace =
    typeof settings.trace === 'string' ? traceFromJsonLines(settings.trace) : settings.trace;
  const source = settings.source ?? 'the recording';
  const recordings = recordingsOf(trace);
  const byKey = new Map<string, Recording[]>();
  for (const recording of recordings) {
    const list = byKey.get(recording.key) ?? [];
    list.push(recording);
    byKey.set(recording.key, list);
  }
  const supportsTools = recordings.some((recording) => recording.offeredTools);
  let asked = 0;
  let diverged: ReplayDivergedError | undefined;
  return {
    modelId: replayModelId,
    supportsTools,
    get recorded() {
      return recordings.length;
    },
    get unused() {
      return recordings.filter((recording) => !recording.used).length;
    },
    async generate(request: GenerateRequest, options: GenerateOptions = {}) {
      options.signal?.throwIfAborted();
      asked += 1;
      if (diverged) throw diverged;
      const same = byKey.get(messagesKey(request.messages));
      const recording = same?.find((found) => !found.used);
      if (recording === undefined) {
        diverged = new ReplayDivergedError(
          same
            ? `@rlm/trace: the replayed run left ${source} at model request ${asked}: the recorded run asked this (${same[0]!.label}) ${count(same.length, 'time')}, and all were answered; this run asks it once more`
            : describeDivergence(asked, request.messages, recordings, source),
          { request: asked },
        );
        throw diverged;
      }
      recording.used = true;
      const { response } = recording;
      if (response.text !== '') {
        try {
          options.onText?.(response.text);
        } catch {
          // The contract: a throw from the callback is ignored.
        }
      }
      return structuredClone(response);
    },
  };
}

/** Every model call of the trace with its whole messages, in the order they were asked. */
function recordingsOf(trace: TraceDocument): Recording[] {
  const recordings: Recording[] = [];
  const add = (label: string, messages: readonly Message[], modelCall: TraceModelCall) =>
    recordings.push({
      label,
      messages,
      key: messagesKey(messages),
      response: modelCall.response,
      askedAt: modelCall.at - modelCall.durationMs,
      offeredTools: (modelCall.tools?.length ?? 0) > 0,
      used: false,
    });
  for (const call of trace.calls) {
    const name = callName(trace, call);
    const expanded = expandModelCalls(call);
    call.steps.forEach((step, position) => {
      const request = expanded.steps[position];
      if (step.modelCall && request) {
        add(`step ${step.iteration} of ${name}`, request.messages, step.modelCall);
      }
      for (const hostCall of step.hostCalls) {
        for (const modelCall of hostCall.modelCalls ?? []) {
          add(
            `${hostCall.name} in step ${step.iteration} of ${name}`,
            modelCall.messages,
            modelCall,
          );
        }
      }
    });
    if (call.extract && expanded.extract) {
      add(`the forced final prompt of ${name}`, expanded.extract.messages, call.extract);
    }
  }
  return recordings.sort((a, b) => a.askedAt - b.askedAt);
}

function callName(trace: TraceDocument, call: TraceCall): string {
  if (call.callId === trace.rootCallId) return 'the root call';
  const query = call.query.replace(/\s+/g, ' ').trim();
  const shown = query.length > 40 ? `${query.slice(0, 39)}…` : query;
  return `the sub_rlm call at depth ${call.depth} (${JSON.stringify(shown)})`;
}

function count(n: number, one: string): string {
  return `${n} ${n === 1 ? one : `${one}s`}`;
}

function messagesKey(messages: readonly Message[]): string {
  return JSON.stringify(messages);
}

/** A message as text: its string, or its parts (tool calls and results as JSON). */
function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) =>
      part.type === 'text'
        ? part.text
        : part.type === 'tool-call'
          ? JSON.stringify({ toolCall: part.call })
          : JSON.stringify({ toolResult: part.content, isError: part.isError ?? false }),
    )
    .join('\n');
}

/** The one-line message of a divergence. */
function describeDivergence(
  request: number,
  messages: readonly Message[],
  recordings: readonly Recording[],
  source: string,
): string {
  const start = `@rlm/trace: the replayed run left ${source} at model request ${request}`;
  const unused = recordings.filter((recording) => !recording.used);
  if (unused.length === 0) {
    return `${start}: all ${recordings.length} recorded responses were given and the run asks for another (${describeLast(messages)}); the recorded run ended there, this one goes on`;
  }
  // The closest: the most leading messages in common, then the earliest asked.
  let closest = unused[0]!;
  let shared = -1;
  for (const recording of unused) {
    let count = 0;
    while (
      count < recording.messages.length &&
      count < messages.length &&
      JSON.stringify(recording.messages[count]) === JSON.stringify(messages[count])
    ) {
      count++;
    }
    if (count > shared) {
      closest = recording;
      shared = count;
    }
  }
  const end = 'the code, context, settings or version changed since the recording';
  const recorded = closest.messages[shared];
  const asked = messages[shared];
  if (recorded === undefined) {
    return `${start}: the closest recorded request, ${closest.label}, has ${closest.messages.length} messages and this one more (message ${shared + 1}, ${asked!.role}: ${JSON.stringify(excerpt(messageText(asked!), 0))}); ${end}`;
  }
  // The same messages would have matched: `asked` is undefined only when this one is shorter.
  if (asked === undefined) {
    return `${start}: the closest recorded request, ${closest.label}, has ${closest.messages.length} messages and this one only ${messages.length}; ${end}`;
  }
  const recordedText = messageText(recorded);
  const askedText = messageText(asked);
  let at = 0;
  while (at < recordedText.length && at < askedText.length && recordedText[at] === askedText[at]) {
    at++;
  }
  const role =
    recorded.role === asked.role ? asked.role : `${recorded.role} then, now ${asked.role}`;
  return `${start}: it differs from the closest recorded request, ${closest.label}, in message ${shared + 1} (${role}) at character ${at + 1}: recorded ${JSON.stringify(excerpt(recordedText, at))}, asked ${JSON.stringify(excerpt(askedText, at))}; ${end}`;
}

/** Up to {@link excerptChars} characters either side of `at`, with `…` where cut. */
function excerpt(text: string, at: number): string {
  const from = Math.max(0, at - excerptChars);
  const to = Math.min(text.length, at + excerptChars);
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}

function describeLast(messages: readonly Message[]): string {
  const last = messages.at(-1);
  if (last === undefined) return 'no messages';
  return `its last message, ${last.role}: ${JSON.stringify(excerpt(messageText(last), 0))}`;
}
