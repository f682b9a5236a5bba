export {
  type FakeMessagesHandler,
  type FakeMessagesRequest,
  type FakeMessagesServer,
  type FakeMessagesServerOptions,
  type FakeRecordedRequest,
  startFakeMessagesServer,
} from './fake-messages-server.js';
export {
  type FakeBodyDelivery,
  type FakeContentBlock,
  type FakeDroppedConnectionReply,
  type FakeEndlessReply,
  type FakeErrorOptions,
  type FakeErrorReply,
  type FakeMessageOptions,
  type FakeHangReply,
  type FakeMessageReply,
  type FakeRawOptions,
  type FakeRawReply,
  type FakeReply,
  type FakeReplyTiming,
  type FakeStopReason,
  type FakeStreamDelivery,
  type FakeToolUseOptions,
  fakeDelay,
  fakeDroppedConnection,
  fakeEndless,
  fakeError,
  fakeHang,
  fakeMessage,
  fakeRaw,
  fakeText,
  fakeToolUse,
  fakeTruncatedToolUse,
} from './fake-messages-server-replies.js';
export { findMessagesRequestViolation } from './fake-messages-server-validation.js';
export { type FakeStreamShape, maxDefaultDeltas } from './to-message-stream-events.js';
export {
  type FakeCacheUsage,
  FakePromptCache,
  type FakePromptCacheOptions,
} from './fake-prompt-cache.js';
