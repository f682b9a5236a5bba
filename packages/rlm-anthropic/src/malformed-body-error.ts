/**
 * A successful status whose body is not a Messages API message: another content type (a
 * proxy's HTML page), JSON of another shape (a bare string), or a body cut mid-stream.
 */
export class MalformedBodyError extends Error {
  readonly status: number;
  /** The `content-type` header, or `none`. */
  readonly contentType: string;
  /** Bytes received. */
  readonly receivedBytes: number;
  /** Bytes announced by `content-length`, when it was sent. */
  readonly expectedBytes: number | undefined;
  /** The start of the body as text, as received (not yet one line). */
  readonly firstBytes: string;
  /** What is wrong: `not JSON`, `cut after 40 of 712 bytes (terminated)`, ... */
  readonly problem: string;

  constructor(fields: {
    status: number;
    contentType: string;
    receivedBytes: number;
    expectedBytes: number | undefined;
    firstBytes: string;
    problem: string;
  }) {
    super(`the ${fields.status} body is not a Messages API message: ${fields.problem}`);
    this.name = 'MalformedBodyError';
    this.status = fields.status;
    this.contentType = fields.contentType;
    this.receivedBytes = fields.receivedBytes;
    this.expectedBytes = fields.expectedBytes;
    this.firstBytes = fields.firstBytes;
    this.problem = fields.problem;
  }
}
