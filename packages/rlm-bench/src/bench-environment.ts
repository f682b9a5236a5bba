import { cpus, totalmem } from 'node:os';

/** Where and when the benchmarks ran. */
export interface BenchEnvironment {
  /** ISO 8601. */
  readonly date: string;
  readonly node: string;
  readonly platform: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  /** The command that produced the results. */
  readonly command: string;
}

/** Describes this machine and process. */
export function benchEnvironment(command: string): BenchEnvironment {
  const processors = cpus();
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpu: processors[0]?.model.trim() ?? 'unknown',
    cores: processors.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    command,
  };
}
