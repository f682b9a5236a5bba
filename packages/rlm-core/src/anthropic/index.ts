export {
  type AnthropicModelSettings,
  createAnthropicModel,
  defaultAnthropicMaxRetries,
  defaultAnthropicMaxRetryAfterMs,
  defaultAnthropicMaxTokens,
  defaultAnthropicModelId,
  defaultAnthropicTimeoutMs,
} from './anthropic-model.js';
