import { Writable } from 'node:stream';

/** A writable stream that keeps what is written to it, as text. */
export type TextCollector = Writable & {
  /** Everything written so far, decoded as UTF-8. */
  text: string;
  /** Whether it passes for a terminal. */
  readonly isTTY: boolean;
};

/** A stream for `stdout` or `stderr` in tests; `isTTY` makes it pass for a terminal. */
export function textCollector(isTTY = false): TextCollector {
  const collector: TextCollector = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        collector.text += chunk.toString('utf8');
        callback();
      },
    }),
    { text: '', isTTY },
  );
  return collector;
}
