export { sampleRunEvents } from './sample-run-events.js';
export { syntheticRunEvents } from './synthetic-run-events.js';
