import { describe, expect, test } from 'vitest';
import { ReachTracker } from './reach-tracker.js';

/** Model variables and a tracker fed by executions over them. */
function harness() {
  const variables = new Map<string, unknown>();
  const reach = new ReachTracker();
  const read = (name: string) => variables.get(name);
  return {
    variables,
    reach,
    step(
      names: string[],
      body: () => void = () => {},
      everything = false,
      captured: string[] = [],
    ) {
      reach.beforeExecution({ names, everything }, read);
      body();
      reach.afterExecution({ captured: new Set(captured), capturesDynamically: false }, read);
    },
  };
}

describe('ReachTracker', () => {
  test('an execution marks the objects it names, and the objects named with them, for good', () => {
    const run = harness();
    run.step(['a', 'b', 'c'], () => {
      run.variables.set('a', [1]);
      run.variables.set('b', { a: run.variables.get('a') });
      run.variables.set('c', [2]);
    });
    run.step(['d'], () => run.variables.set('d', [3]));
    const since = run.reach.generation;
    // Naming `a` alone: `b` (named with it) may hold it; `d` was never named with either.
    run.step(['a']);
    expect(run.reach.mayHaveChangedSince('a', since)).toBe(true);
    expect(run.reach.mayHaveChangedSince('b', since)).toBe(true);
    expect(run.reach.mayHaveChangedSince('c', since)).toBe(true);
    expect(run.reach.mayHaveChangedSince('d', since)).toBe(false);
  });

  test('an execution naming only primitives marks nothing', () => {
    const run = harness();
    run.step(['list'], () => run.variables.set('list', [1]));
    const since = run.reach.generation;
    run.step(['step'], () => run.variables.set('step', 1));
    expect(run.reach.generation).toBe(since + 1);
    expect(run.reach.mayHaveChangedSince('list', since)).toBe(false);
  });

  test('calling what closures name, or reaching dynamically, marks them or everything', () => {
    const run = harness();
    run.step(
      ['list', 'add'],
      () => {
        run.variables.set('list', [1]);
        run.variables.set('add', () => {});
      },
      false,
      ['list'],
    );
    run.step(['other'], () => run.variables.set('other', { n: 1 }));
    let since = run.reach.generation;
    run.step(['add'], () => {}, false, ['list']);
    expect(run.reach.mayHaveChangedSince('list', since)).toBe(true);
    expect(run.reach.mayHaveChangedSince('other', since)).toBe(false);
    since = run.reach.generation;
    run.step([], () => {}, true);
    expect(run.reach.mayHaveChangedSince('other', since)).toBe(true);
  });

  test('readers at different generations do not clear each other', () => {
    const run = harness();
    run.step(['a', 'b'], () => {
      run.variables.set('a', [1]);
      run.variables.set('b', [2]);
    });
    const first = run.reach.generation;
    run.step(['x'], () => run.variables.set('x', { n: 1 }));
    const second = run.reach.generation;
    run.step(['y'], () => run.variables.set('y', 1));
    // The first reader has not looked since `x` was created and marked; the second has.
    expect(run.reach.mayHaveChangedSince('x', first)).toBe(true);
    expect(run.reach.mayHaveChangedSince('x', second)).toBe(false);
    expect(run.reach.mayHaveChangedSince('a', first)).toBe(false);
  });
});
