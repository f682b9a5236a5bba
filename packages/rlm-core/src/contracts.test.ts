import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

// The layering rules of DESIGN.md's "Kernel and feature wings" section: the contracts (the
// narrow interfaces, events, errors) import only other contracts; the kernel (`loop/`) imports
// no feature; a feature wing reaches the kernel only through `features/feature.ts`; and no file
// of the package is part of an import cycle (type imports included). `rlm-settings.ts` is no
// contract: it composes the settings groups that the wings own.

const sourceRoot = dirname(fileURLToPath(import.meta.url));

/** The contract files, relative to src/; every file under errors/ is one too. */
const contracts = new Set([
  'artifact-store.ts',
  'durable-tool-store.ts',
  'events.ts',
  'budget-settings.ts',
  'history-entry.ts',
  'language-model.ts',
  'run-usage.ts',
  'sandbox.ts',
  'schema.ts',
]);

function isContract(file: string): boolean {
  return contracts.has(file) || file.startsWith('errors/');
}

/** Every non-test source file under src/, relative to it, with the local files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = readdirSync(sourceRoot, { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
  );
  for (const file of files) {
    const source = readFileSync(join(sourceRoot, file), 'utf8');
    const imports = [...source.matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g)].map((match) =>
      normalize(join(dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts'))),
    );
    graph.set(normalize(file), imports);
  }
  return graph;
}

/** The import cycles of `graph`, each as the files on it, in order. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') cycles.push(path.slice(path.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('the import structure of @rlm/core', () => {
  const graph = importGraph();

  test('contracts import only contracts', () => {
    const outside = [...graph]
      .filter(([file]) => isContract(file))
      .flatMap(([file, imports]) =>
        imports.filter((target) => !isContract(target)).map((target) => `${file} -> ${target}`),
      );
    expect(outside).toEqual([]);
    // The contracts were found at all: a rename would otherwise pass silently.
    for (const file of contracts) expect(graph.has(file)).toBe(true);
  });

  test('the kernel imports no feature, and features reach it only through feature.ts', () => {
    const edges = [...graph].flatMap(([file, imports]) =>
      imports.map((target) => ({ file, target })),
    );
    const kernelToFeature = edges.filter(
      ({ file, target }) => file.startsWith('loop/') && target.startsWith('features/'),
    );
    expect(kernelToFeature.map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
    const wingToKernel = edges.filter(
      ({ file, target }) => /^features\/[^/]+\//.test(file) && target.startsWith('loop/'),
    );
    expect(wingToKernel.map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
    // The wings were found at all: a move would otherwise pass silently.
    for (const wing of ['artifacts', 'durable-tools', 'host-tools', 'session']) {
      expect([...graph.keys()].some((file) => file.startsWith(`features/${wing}/`))).toBe(true);
    }
  });

  test('no import cycles, type imports included', () => {
    expect(cyclesOf(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  test('the cycle check finds a planted cycle', () => {
    const planted = new Map([
      ['events.ts', ['variable-space.ts']],
      ['variable-space.ts', ['events.ts']],
    ]);
    expect(cyclesOf(planted)).toEqual([['events.ts', 'variable-space.ts']]);
  });
});
