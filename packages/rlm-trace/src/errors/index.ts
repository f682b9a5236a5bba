export { TraceCorruptError } from './trace-corrupt-error.js';
export { TraceNotFoundError } from './trace-not-found-error.js';
export { ReplayDivergedError } from './replay-diverged-error.js';
