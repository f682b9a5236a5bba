export {
  createOpenAIModel,
  defaultOpenAIMaxRetries,
  defaultOpenAIMaxRetryAfterMs,
  defaultOpenAITimeoutMs,
  keylessPlaceholder,
  type OpenAIModelSettings,
  openAIBaseURL,
} from './openai-model.js';
export { type MaxTokensParameter, toChatMessages, toolErrorPrefix } from './to-chat-request.js';
