import type { ServerResponse } from 'node:http';

/**
 * For fake provider servers: writes `chunk` to `response` again and again, as fast as the
 * client reads it, until the client goes away (an answer that never ends). Resolves how many
 * bytes were written; the caller has sent the status and headers.
 */
export function writeEndlessly(response: ServerResponse, chunk: string): Promise<number> {
  const bytes = Buffer.from(chunk, 'utf8');
  let written = 0;
  return new Promise((resolve) => {
    const pump = () => {
      while (!response.destroyed && !response.writableEnded) {
        written += bytes.length;
        if (!response.write(bytes)) {
          response.once('drain', pump);
          return;
        }
      }
    };
    response.once('close', () => resolve(written));
    pump();
  });
}
