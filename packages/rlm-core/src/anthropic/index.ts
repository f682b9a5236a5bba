export {
  type AnthropicModelSettings,
  createAnthropicModel,
  defaultAnthropicMaxRetries,
  defaultAnthropicMaxTokens,
  defaultAnthropicModelId,
  defaultAnthropicTimeoutMs,
} from './anthropic-model.js';
