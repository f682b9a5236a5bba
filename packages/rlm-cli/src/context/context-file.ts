/** One file of a context, found but not read yet. */
export interface ContextFile {
  /** The path as the user can find it (joined onto what they typed). */
  readonly path: string;
  /** The `/`-separated path relative to the context directory (the base name for `--context`). */
  readonly relativePath: string;
  /** Size reported by `stat`, in bytes; 0 for pipes and other streams. */
  readonly size: number;
}
