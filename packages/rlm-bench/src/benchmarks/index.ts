import type { Benchmark } from '../benchmark.js';
import { artifactStoreBenchmark } from './artifact-store-benchmark.js';
import { bridgeBenchmark } from './bridge-benchmark.js';
import { checkpointBenchmark } from './checkpoint-benchmark.js';
import { checkpointCliBenchmark } from './checkpoint-cli-benchmark.js';
import { checkpointSaveBenchmark } from './checkpoint-save-benchmark.js';
import { coldStartBenchmark } from './cold-start-benchmark.js';
import { computeBenchmark } from './compute-benchmark.js';
import { contextDirectoryBenchmark } from './context-directory-benchmark.js';
import { contextHandOverBenchmark } from './context-hand-over-benchmark.js';
import { executeBenchmark } from './execute-benchmark.js';
import { largeCheckpointBenchmark } from './large-checkpoint-benchmark.js';
import { promptCachingBenchmark } from './prompt-caching-benchmark.js';
import { promptGrowthBenchmark } from './prompt-growth-benchmark.js';
import { quickjsBenchmark } from './quickjs-benchmark.js';
import { serveBenchmark } from './serve-benchmark.js';
import { traceViewerBenchmark } from './trace-viewer-benchmark.js';

/** Every benchmark, in the order the table shows them. */
export const benchmarks: readonly Benchmark[] = [
  artifactStoreBenchmark,
  checkpointBenchmark,
  checkpointSaveBenchmark,
  largeCheckpointBenchmark,
  checkpointCliBenchmark,
  promptGrowthBenchmark,
  promptCachingBenchmark,
  coldStartBenchmark,
  executeBenchmark,
  computeBenchmark,
  contextHandOverBenchmark,
  contextDirectoryBenchmark,
  bridgeBenchmark,
  quickjsBenchmark,
  traceViewerBenchmark,
  serveBenchmark,
];
