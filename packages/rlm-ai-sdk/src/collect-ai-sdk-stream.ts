import type {
  LanguageModelV2Content,
  LanguageModelV2FinishReason,
  LanguageModelV2StreamPart,
  LanguageModelV2Usage,
} from '@ai-sdk/provider';
import type { ResponseByteLimit } from '@rlm/core';

/** A stream failed before its end (the connection was lost mid-answer). */
export class StreamCutError extends Error {
  constructor(cause: unknown) {
    let root = cause;
    while (root instanceof Error && root.cause instanceof Error) root = root.cause;
    super(root instanceof Error ? root.message : String(root));
    this.name = 'StreamCutError';
  }
}

/** What a `doGenerate` result holds, read from a `doStream` stream instead. */
export interface CollectedStream {
  readonly content: LanguageModelV2Content[];
  readonly finishReason: LanguageModelV2FinishReason;
  readonly usage: LanguageModelV2Usage;
}

/** The size of a stream part or a result's content: the UTF-8 bytes of its JSON form. */
export function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch {
    return 0;
  }
}

/**
 * Reads an AI SDK (spec v2) stream to its end: text deltas joined into one text part (each
 * passed to `onText` as it arrives; a throwing `onText` is ignored), complete `tool-call` parts,
 * the finish reason and usage of the `finish` part; `onPart` is called on every part (the
 * stream is alive), and `limit` counts each part's size (its JSON). An `error` part rejects with
 * its error; a stream that fails to read (a connection lost mid-answer) or that ends before its
 * `finish` part (an answer that may be cut short) rejects with a `StreamCutError`; parts past
 * the limit reject with its `ResponseTooLargeError`, and the stream is cancelled.
 */
export async function collectAISDKStream(
  stream: ReadableStream<LanguageModelV2StreamPart>,
  onText: ((delta: string) => void) | undefined,
  onPart?: () => void,
  limit?: ResponseByteLimit,
): Promise<CollectedStream> {
  let text = '';
  const calls: LanguageModelV2Content[] = [];
  let finishReason: LanguageModelV2FinishReason | undefined;
  let usage: LanguageModelV2Usage = {
    inputTokens: undefined,
    outputTokens: undefined,
    totalTokens: undefined,
  };
  const reader = stream.getReader();
  try {
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        throw new StreamCutError(error);
      }
      const { done, value: part } = read;
      if (done) break;
      onPart?.();
      try {
        limit?.count(jsonBytes(part));
      } catch (error) {
        await reader.cancel(error).catch(() => {});
        throw error;
      }
      switch (part.type) {
        case 'text-delta':
          text += part.delta;
          try {
            onText?.(part.delta);
          } catch {
            // Reporting text is best-effort.
          }
          break;
        case 'tool-call':
          calls.push(part);
          break;
        case 'finish':
          finishReason = part.finishReason;
          usage = part.usage;
          break;
        case 'error':
          throw part.error;
        default:
          break;
      }
    }
  } finally {
    reader.releaseLock();
  }
  if (finishReason === undefined) {
    throw new StreamCutError(new Error('the stream ended before its finish part'));
  }
  return {
    content: [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...calls],
    finishReason,
    usage,
  };
}
