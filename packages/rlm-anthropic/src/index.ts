export {
  type AnthropicModelSettings,
  createAnthropicModel,
  defaultAnthropicMaxRetries,
  defaultAnthropicMaxRetryAfterMs,
  defaultAnthropicMaxTokens,
  defaultAnthropicTimeoutMs,
} from './anthropic-model.js';
export { maxCacheBreakpoints, withCacheBreakpoints } from './to-anthropic-request.js';
export { defaultAnthropicModelId } from './default-anthropic-model-id.js';
