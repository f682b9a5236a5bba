/** The message of a thrown value: an `Error`'s message, a string as it is, else a stand-in. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'unknown error';
}
