/**
 * Parts that sandbox adapters share, apart from the main entry so that a sandbox's worker
 * loads only these: the clock an execution's timeout counts on, the tracking of which
 * variables an execution could have changed, and the output shared with a worker.
 */
export {
  type DescribeVariable,
  describeVariable,
  makeVariableDescriber,
  maxPreviewChars,
  type VariableDescriberIntrinsics,
} from './describe-variable.js';
export { ExecutionClock } from './execution-clock.js';
export { type ExecutionTimeLimits, watchExecutionTime } from './watch-execution-time.js';
export { OutputBuffer } from './output-buffer.js';
export { type StartingWorker, WorkerPool, type WorkerPoolSettings } from './worker-pool.js';
export {
  type ExecutionAfter,
  type ExecutionNames,
  isPrimitive,
  ReachTracker,
} from './reach-tracker.js';
