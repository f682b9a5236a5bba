import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from 'vitest';
import { loadToolsModule } from './load-tools-module.js';
import { useTemporaryDirectory } from '../test-support/use-temporary-directory.js';

const { root: directory } = useTemporaryDirectory('rlm-tools-module-');

async function moduleFile(name: string, source: string): Promise<string> {
  const file = path.join(directory, name);
  await writeFile(file, source);
  return file;
}

const tool = (name: string) =>
  `{ name: ${JSON.stringify(name)}, description: 'd', inputSchema: { type: 'object' }, execute: () => 1 }`;

test('a module whose top-level await has not settled within the bound is a usage error', async () => {
  // The interval keeps the event loop busy, so only the bound ends the wait.
  const file = await moduleFile(
    'slow.mjs',
    `const timer = setInterval(() => {}, 1000);\nawait new Promise(() => {});\nexport const tools = [${tool('never')}];\nclearInterval(timer);`,
  );
  await expect(loadToolsModule(file, 300)).rejects.toMatchObject({
    name: 'UsageError',
    message: expect.stringMatching(/slow\.mjs: the module did not finish loading within 0\.3 s/),
  });
});

test('names must be distinct JavaScript identifiers', async () => {
  const spaced = await moduleFile('spaced.mjs', `export const tools = [${tool('two words')}];`);
  await expect(loadToolsModule(spaced)).rejects.toThrow(
    'tool name "two words" is not a JavaScript identifier',
  );
  const twice = await moduleFile('twice.mjs', `export default [${tool('a')}, ${tool('a')}];`);
  await expect(loadToolsModule(twice)).rejects.toThrow('two tools are named "a"');
  const fine = await moduleFile(
    'fine.mjs',
    `export const tools = [${tool('a')}, ${tool('$b_2')}];`,
  );
  expect((await loadToolsModule(fine)).map((loaded) => loaded.name)).toEqual(['a', '$b_2']);
});

test('a schema that is a function (an arktype schema) is accepted; a string is not', async () => {
  const standardFunction = [
    "const schema = Object.assign(() => true, { '~standard': { version: 1, vendor: 'custom',",
    'validate: (value) => ({ value }), jsonSchema: { input: () => ({}), output: () => ({}) } } });',
    "export const tools = [{ name: 'f', description: 'd', inputSchema: schema, execute: () => 1 }];",
  ].join('\n');
  const file = await moduleFile('function-schema.mjs', standardFunction);
  expect((await loadToolsModule(file)).map((loaded) => loaded.name)).toEqual(['f']);
  const text = await moduleFile(
    'text-schema.mjs',
    "export const tools = [{ name: 'g', description: 'd', inputSchema: 'object', execute: () => 1 }];",
  );
  await expect(loadToolsModule(text)).rejects.toThrow(/an inputSchema \(a JSON Schema or a zod/);
});
