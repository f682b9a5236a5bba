import { bareModelId } from '@rlm/core';

/**
 * Input windows, in tokens, of models whose window is published (November 2026): what the
 * direct baseline may put in one prompt. Claude models: 200,000 tokens (the 1M-token window is
 * a beta that needs its own header); GPT-5 models: 272,000 input tokens of their 400,000;
 * GPT-4.1 models: 1,047,576. A model not listed needs its window given
 * (`directBaselineWindow`, `--baseline-window`).
 */
export const defaultContextWindows: Readonly<Record<string, number>> = {
  'claude-opus-4-5': 200_000,
  'claude-opus-4-1': 200_000,
  'claude-opus-4': 200_000,
  'claude-sonnet-4-5': 200_000,
  'claude-sonnet-4': 200_000,
  'claude-haiku-4-5': 200_000,
  'claude-3-5-haiku': 200_000,
  'gpt-5': 272_000,
  'gpt-5-mini': 272_000,
  'gpt-4.1': 1_047_576,
  'gpt-4.1-mini': 1_047_576,
  'gpt-4o': 128_000,
  'gpt-4o-mini': 128_000,
  o3: 200_000,
  'o4-mini': 200_000,
};

/**
 * The window of `modelId` in `windows` (default {@link defaultContextWindows}), matched like
 * prices: the whole id, the id without its `provider:` prefix, else the longest key the id
 * starts with followed by `-` (a dated snapshot). `undefined` when unknown: never a guess.
 */
export function findContextWindow(
  modelId: string,
  windows: Readonly<Record<string, number>> = defaultContextWindows,
): number | undefined {
  if (Object.hasOwn(windows, modelId)) return windows[modelId];
  const id = bareModelId(modelId);
  if (Object.hasOwn(windows, id)) return windows[id];
  let best: string | undefined;
  for (const key of Object.keys(windows)) {
    if (id.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : windows[best];
}
