export {
  type AnthropicModelSettings,
  createAnthropicModel,
  defaultAnthropicMaxRetries,
  defaultAnthropicMaxTokens,
  defaultAnthropicModelId,
  defaultAnthropicTimeoutMs,
} from './anthropic-model.js';
export { maxCacheBreakpoints, withCacheBreakpoints } from './to-anthropic-request.js';
