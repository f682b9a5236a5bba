import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `content` to `name` (a relative path, `/` allowed) under `directory`, making the parent
 * directories; resolves to the file's path.
 */
export async function writeFileIn(
  directory: string,
  name: string,
  content: string | Buffer,
): Promise<string> {
  const file = path.join(directory, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}
