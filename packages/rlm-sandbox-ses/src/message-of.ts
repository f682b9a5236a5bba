/** The message of `error`, or a placeholder when reading it throws (a hostile getter). */
export function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
}
