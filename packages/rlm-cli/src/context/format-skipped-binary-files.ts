/** How many skipped files the notice names before "and N more". */
const namedFiles = 3;

/**
 * The stderr notice for binary files a `--context-dir` load skipped: one line, the count, the
 * first few paths, and the flag that makes them an error. Newline included.
 */
export function formatSkippedBinaryFiles(files: readonly string[]): string {
  const named = files.slice(0, namedFiles).join(', ');
  const more = files.length > namedFiles ? ` and ${files.length - namedFiles} more` : '';
  const noun = files.length === 1 ? 'binary file' : 'binary files';
  return `rlm: skipped ${files.length} ${noun} (not UTF-8 text): ${named}${more}; --strict makes this an error\n`;
}
