/** Milliseconds `work` takes, with `performance.now()`. */
export async function timeAsync(work: () => unknown): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}
