import { createSesSandbox } from '@rlm/sandbox-ses';

/** The sandbox every loop test runs through: the real SES adapter, in worker threads. */
export const sandboxFactory = createSesSandbox();
