export {
  type AISDKModelSettings,
  createAISDKModel,
  defaultAISDKMaxRetries,
  defaultAISDKMaxRetryAfterMs,
  defaultAISDKTimeoutMs,
} from './ai-sdk-model.js';
export { toAISDKPrompt } from './to-ai-sdk-call-options.js';
