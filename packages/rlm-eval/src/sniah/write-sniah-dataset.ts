import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateSniah, type SniahSettings } from './generate-sniah.js';

/** What {@link writeSniahDataset} wrote. */
export interface WrittenSniahDataset {
  /** The dataset: `<directory>/data.jsonl`. */
  readonly datasetFile: string;
  readonly items: number;
  /** Bytes of the context files. */
  readonly contextBytes: number;
}

/**
 * Writes a generated S-NIAH dataset (see `generateSniah`) into `directory`: `data.jsonl`, one
 * `{id, query, context, expected, length_tokens, depth}` line per item, and each context as
 * `contexts/<id>.txt` (the `context` paths are relative to the dataset). The same settings
 * write the same bytes. Rejects like the file system does.
 */
export async function writeSniahDataset(
  directory: string,
  settings: SniahSettings,
): Promise<WrittenSniahDataset> {
  const items = generateSniah(settings);
  await mkdir(path.join(directory, 'contexts'), { recursive: true });
  const lines: string[] = [];
  let contextBytes = 0;
  for (const item of items) {
    const relative = `contexts/${item.id}.txt`;
    const stream = createWriteStream(path.join(directory, relative));
    const failed = once(stream, 'error').then(([error]) => {
      throw error;
    });
    failed.catch(() => {});
    for (const piece of item.context()) {
      contextBytes += Buffer.byteLength(piece);
      if (!stream.write(piece)) await Promise.race([once(stream, 'drain'), failed]);
    }
    stream.end();
    await Promise.race([once(stream, 'finish'), failed]);
    lines.push(
      JSON.stringify({
        id: item.id,
        query: item.query,
        context: relative,
        expected: item.expected,
        length_tokens: item.lengthTokens,
        depth: item.depth,
      }),
    );
  }
  const datasetFile = path.join(directory, 'data.jsonl');
  await writeFile(datasetFile, `${lines.join('\n')}\n`);
  return { datasetFile, items: items.length, contextBytes };
}
