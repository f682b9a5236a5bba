import type { ModelCallSetting } from '@rlm/core';

/** The flag that sets each model adapter setting of `--model`. */
export const modelSettingFlags: Readonly<Record<ModelCallSetting, string>> = {
  timeoutMs: '--request-timeout',
  maxRetries: '--max-retries',
  maxRetryAfterMs: '--max-retry-wait',
  maxResponseBytes: '--max-response-bytes',
  baseURL: '--base-url',
};

/** The flag that sets each model adapter setting of `--sub-model`. */
export const subModelSettingFlags: Readonly<Record<ModelCallSetting, string>> = {
  ...modelSettingFlags,
  baseURL: '--sub-base-url',
};

/** `message` with each setting it names replaced by its flag. */
export function withFlags(
  message: string,
  settings: readonly ModelCallSetting[],
  flags: Readonly<Record<ModelCallSetting, string>>,
): string {
  return settings.reduce((text, setting) => {
    const flag = flags[setting] ?? setting;
    return text
      .replace(new RegExp(`\\bthe ${setting} setting\\b`, 'g'), flag)
      .replace(new RegExp(`\\b${setting}\\b`, 'g'), flag);
  }, message);
}
