/** Why a file could not be read, in a few words: `no such file`, `a directory, not a file`, ... */
export function describeReadFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'a directory, not a file';
  return error instanceof Error ? error.message : String(error);
}
