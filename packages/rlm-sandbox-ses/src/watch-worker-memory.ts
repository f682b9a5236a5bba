/** How often the host samples memory while code runs, in milliseconds. */
const memoryCheckIntervalMs = 20;
/** How long a worker gets to report its memory before it counts as busy allocating. */
const memoryProbeTimeoutMs = 100;

/** A running watch of a worker's memory (see {@link watchWorkerMemory}). */
export interface MemoryWatch {
  /** The worker's answer to a probe: its own ArrayBuffer bytes. */
  report(arrayBufferBytes: number): void;
  stop(): void;
}

/**
 * V8's heap limit does not count ArrayBuffers, so while code runs the host watches the
 * process's resident memory, less what the host's own isolate grew by (its heap and external
 * memory: a value a host function is storing, say). Past the limit it asks the worker for its
 * own ArrayBuffer total (`probe`; the answer comes to {@link MemoryWatch.report}): a worker over
 * the limit, or too busy to answer (allocating in synchronous code), faults; growth elsewhere in
 * the process (another sandbox) only moves the baseline.
 */
export function watchWorkerMemory(
  limitBytes: number,
  probe: () => void,
  onFault: () => void,
): MemoryWatch {
  const measure = () => {
    const { rss, heapUsed, external } = process.memoryUsage();
    return { rss, host: heapUsed + external };
  };
  let baseline = measure();
  /** Resident memory grown since the baseline that the host's own isolate does not explain. */
  const grown = () => {
    // The resident size alone is cheap; the host's heap figures only matter past the limit.
    const rssGrowth = process.memoryUsage.rss() - baseline.rss;
    if (rssGrowth <= limitBytes) return rssGrowth;
    return rssGrowth - Math.max(0, measure().host - baseline.host);
  };
  let probeSentAt: number | undefined;
  const check = setInterval(() => {
    if (grown() <= limitBytes) return;
    if (probeSentAt === undefined) {
      probeSentAt = performance.now();
      probe();
    } else if (performance.now() - probeSentAt > memoryProbeTimeoutMs) {
      onFault();
    }
  }, memoryCheckIntervalMs);
  return {
    report(arrayBufferBytes) {
      if (arrayBufferBytes > limitBytes) {
        onFault();
        return;
      }
      baseline = measure();
      probeSentAt = undefined;
    },
    stop: () => clearInterval(check),
  };
}
