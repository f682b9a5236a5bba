/** One step of a {@link ReplCase}: code run in a sandbox, after the steps before it. */
export interface ReplStep {
  readonly code: string;
  /**
   * The names this step makes persist: its top-level declarations and its undeclared
   * assignments outside functions (see `topLevelDeclarations`, `assignedUndeclaredNames`).
   */
  readonly persists: readonly string[];
  /** Whether the step's value is its last expression statement's (see `lastExpressionStatement`). */
  readonly returnsValue: boolean;
  /** The whole output the step prints, when it runs without error. */
  readonly output: string;
}

/**
 * A behaviour of the REPL that every sandbox shares: steps run one after another in one
 * sandbox, each with what it should persist, return and print.
 */
export interface ReplCase {
  readonly name: string;
  readonly steps: readonly ReplStep[];
}

/**
 * The table of the three REPL rules (top-level declarations persist, the last expression's
 * value is returned, an undeclared assignment outside functions creates a variable): the
 * transform is tested against it, and each sandbox runs it for real. Values are strings or
 * small numbers, which every sandbox prints the same way.
 */
export const replCases: readonly ReplCase[] = [
  {
    name: 'a top-level let persists',
    steps: [
      { code: 'let a = 1', persists: ['a'], returnsValue: false, output: '' },
      { code: 'a + 1', persists: [], returnsValue: true, output: '2' },
    ],
  },
  {
    name: 'const, function and class declarations persist',
    steps: [
      {
        code: 'const c = 20\nfunction twice(x) { return x * 2 }\nclass Box { get v() { return "box" } }',
        persists: ['Box', 'c', 'twice'],
        returnsValue: false,
        output: '',
      },
      { code: 'twice(c) + 2', persists: [], returnsValue: true, output: '42' },
      { code: 'new Box().v', persists: [], returnsValue: true, output: 'box' },
    ],
  },
  {
    name: 'destructured declarations persist each name',
    steps: [
      {
        code: 'const { p, q: [r], ...rest } = { p: 1, q: [2], s: 3 }',
        persists: ['p', 'r', 'rest'],
        returnsValue: false,
        output: '',
      },
      { code: 'p + r + rest.s', persists: [], returnsValue: true, output: '6' },
    ],
  },
  {
    name: 'a var in a block persists; a let in a block does not',
    steps: [
      {
        code: 'if (true) { var v = 7; let hidden = 1 }',
        persists: ['v'],
        returnsValue: false,
        output: '',
      },
      { code: 'typeof hidden + " " + v', persists: [], returnsValue: true, output: 'undefined 7' },
    ],
  },
  {
    name: 'the last expression statement is the value, with or without a semicolon',
    steps: [
      { code: '"first";', persists: [], returnsValue: true, output: 'first' },
      {
        code: 'print("printed")\n"last"',
        persists: [],
        returnsValue: true,
        output: 'printed\nlast',
      },
    ],
  },
  {
    name: 'code that does not end in an expression has no value',
    steps: [
      { code: '"unused"; let w = 3', persists: ['w'], returnsValue: false, output: '' },
      { code: 'if (w) { "inside a block" }', persists: [], returnsValue: false, output: '' },
    ],
  },
  {
    name: 'an undeclared assignment outside functions creates a variable',
    steps: [
      { code: 'u = 4', persists: ['u'], returnsValue: true, output: '4' },
      { code: 'u * 2', persists: [], returnsValue: true, output: '8' },
    ],
  },
  {
    name: 'an undeclared for...of target persists its last value',
    steps: [
      { code: 'for (k of [1, 2, 3]) {}', persists: ['k'], returnsValue: false, output: '' },
      { code: 'k', persists: [], returnsValue: true, output: '3' },
    ],
  },
  {
    name: 'an assignment to a name a block declares stays in the block',
    steps: [
      { code: '{ let s; s = 1 }', persists: [], returnsValue: false, output: '' },
      { code: 'typeof s', persists: [], returnsValue: true, output: 'undefined' },
    ],
  },
  {
    name: 'top-level await works and its result persists',
    steps: [
      {
        code: 'const t = await Promise.resolve(9)',
        persists: ['t'],
        returnsValue: false,
        output: '',
      },
      { code: 't', persists: [], returnsValue: true, output: '9' },
    ],
  },
  {
    name: 'a function made earlier sees a later reassignment',
    steps: [
      {
        code: 'let n = 1\nfunction current() { return n }',
        persists: ['current', 'n'],
        returnsValue: false,
        output: '',
      },
      { code: 'n = 2', persists: ['n'], returnsValue: true, output: '2' },
      { code: 'current()', persists: [], returnsValue: true, output: '2' },
    ],
  },
];
