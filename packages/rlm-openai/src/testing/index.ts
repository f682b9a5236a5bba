export {
  type FakeChatCompletionOptions,
  type FakeChatCompletionReply,
  type FakeChatDroppedConnectionReply,
  type FakeChatEndlessReply,
  type FakeChatErrorOptions,
  type FakeChatErrorReply,
  type FakeChatHangReply,
  type FakeChatRawReply,
  type FakeChatReply,
  type FakeChatTiming,
  type FakeChatToolCall,
  type FakeChatUsage,
  fakeChatDroppedConnection,
  fakeChatEndless,
  fakeChatError,
  fakeChatHang,
  fakeChatRaw,
  fakeChatText,
  fakeChatToolCall,
} from './fake-chat-replies.js';
export {
  type FakeChatCompletionsServer,
  type FakeChatCompletionsServerOptions,
  type FakeChatHandler,
  type FakeChatRecordedRequest,
  type FakeChatRequest,
  startFakeChatCompletionsServer,
} from './fake-chat-completions-server.js';
export { findChatRequestViolation } from './find-chat-request-violation.js';
export { fakeChatConformanceReplies } from './fake-chat-conformance-replies.js';
export {
  type InFlightLimit,
  type InFlightLimitedHandler,
  limitInFlight,
} from './limit-in-flight.js';
