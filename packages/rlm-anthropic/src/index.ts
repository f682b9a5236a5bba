export {
  type AnthropicModelSettings,
  createAnthropicModel,
  defaultAnthropicMaxRetries,
  defaultAnthropicMaxRetryAfterMs,
  defaultAnthropicMaxTokens,
  defaultAnthropicModelId,
  defaultAnthropicTimeoutMs,
} from './anthropic-model.js';
export { maxCacheBreakpoints, withCacheBreakpoints } from './to-anthropic-request.js';
