/** A streamed answer stopped before its end: the connection closed or reset mid-stream. */
export class StreamCutError extends Error {
  /** What happened, one line, e.g. `other side closed` or `ended after 4 events, before message_stop`. */
  readonly problem: string;

  constructor(problem: string) {
    super(`the stream stopped before its end (${problem})`);
    this.name = 'StreamCutError';
    this.problem = problem;
  }
}
