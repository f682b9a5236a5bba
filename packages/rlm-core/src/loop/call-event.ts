import type { RlmEvent } from '../events.js';

/** `Omit` that distributes over a union. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event as a handler emits it: the kernel adds the call id, depth and time. */
export type CallEvent = DistributiveOmit<RlmEvent, 'callId' | 'depth' | 'at'>;
