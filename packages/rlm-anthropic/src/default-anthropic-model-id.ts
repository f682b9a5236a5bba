/**
 * The model used when `settings.model` is not given: the newest Sonnet-class model that
 * `@anthropic-ai/sdk` lists and does not mark deprecated. Also exported alone as
 * `@rlm/anthropic/model-id`, which does not load the SDK.
 */
export const defaultAnthropicModelId = 'claude-sonnet-5-5';
