/** A 2xx answer whose body is not a chat completion (a proxy's page, a cut-off body). */
export class MalformedCompletionError extends Error {
  /** What is wrong with the body, e.g. `no choices`. */
  readonly problem: string;

  constructor(problem: string) {
    super(`the answer is not a chat completion: ${problem}`);
    this.name = 'MalformedCompletionError';
    this.problem = problem;
  }
}
