/** The message of `error` for a one-line report, or a placeholder when reading it throws. */
export function describeError(error: unknown): string {
  try {
    if (typeof error === 'object' && error !== null && 'message' in error) {
      return String((error as { message: unknown }).message);
    }
    return String(error);
  } catch {
    return 'unknown error';
  }
}
