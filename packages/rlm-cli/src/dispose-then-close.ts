/**
 * Disposes the RLM, which waits for checkpoint writes still running after a run answered, and
 * only then closes the artifact store, so a write is never cut by the close. Never rejects.
 */
export async function disposeThenClose(
  rlm: { dispose(): Promise<void> } | undefined,
  store: { close(): Promise<void> } | undefined,
): Promise<void> {
  await rlm?.dispose().catch(() => {});
  await store?.close().catch(() => {});
}
