/** The prefix every error message of an rlm package starts with: `@rlm/core: `, `@rlm/sandbox-ses: `. */
const packagePrefix = /^@rlm\/[\w/-]+:\s*/;

/** How long a line {@link formatErrorLine} returns may be unless told otherwise. */
const defaultMaxLength = 600;

/**
 * The one line a person reads for a thrown value: an `Error`'s message (or the `message` of an
 * error-like object from another realm), a string as it is, anything else as `String(value)`.
 * White space (newlines too) collapses to single spaces, the leading package prefix
 * (`@rlm/artifacts: `) is dropped, since a command or a server names itself, and a line longer
 * than `maxLength` characters (default 600) is cut with `…`. Never throws, whatever it is given.
 */
export function formatErrorLine(
  error: unknown,
  options: { readonly maxLength?: number } = {},
): string {
  const maxLength = options.maxLength ?? defaultMaxLength;
  const line = messageOf(error).replace(/\s+/g, ' ').trim().replace(packagePrefix, '');
  return line.length > maxLength ? `${line.slice(0, Math.max(0, maxLength - 1))}…` : line;
}

function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) return error.message;
    if (typeof error === 'string') return error;
    if (typeof error === 'object' && error !== null) {
      const { message } = error as { message?: unknown };
      if (typeof message === 'string') return message;
    }
    return String(error);
  } catch {
    // A getter or `toString` that throws.
    return 'unknown error';
  }
}
