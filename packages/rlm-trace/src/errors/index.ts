export { TraceCorruptError } from './trace-corrupt-error.js';
export { TraceNotFoundError } from './trace-not-found-error.js';
