import picomatch from 'picomatch';

/** Which files of a context directory `--include` and `--exclude` keep. */
export interface ContextPathFilter {
  /** True when at least one `--include` glob was given. */
  readonly hasIncludes: boolean;
  /** Whether an `--exclude` glob matches this file or directory (a directory is pruned whole). */
  excludes(relativePath: string): boolean;
  /**
   * Whether an `--include` glob matches this path. A matched directory includes everything
   * below it.
   */
  includes(relativePath: string): boolean;
}

type Matcher = (relativePath: string) => boolean;

/**
 * Compiles `--include` and `--exclude` globs (picomatch syntax: `*`, `**`, `?`, `[...]`,
 * `{a,b}`). Paths are `/`-separated and relative to the context directory. A glob without a
 * `/` matches the last segment at any depth (`*.md`, `node_modules`), as in `.gitignore`; a
 * glob with one matches from the top (`docs/**`, `src/*.ts`); a leading `./` or `/` and a
 * trailing `/` are dropped. Dot files match like any other. Throws a `TypeError` naming a
 * glob that cannot be compiled.
 */
export function createContextPathFilter(options: {
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}): ContextPathFilter {
  const include = compileAny(options.include, '--include');
  const exclude = compileAny(options.exclude, '--exclude');
  return {
    hasIncludes: options.include.length > 0,
    excludes: exclude,
    includes: include,
  };
}

function compileAny(globs: readonly string[], flag: string): Matcher {
  const matchers = globs.map((glob) => compile(glob, flag));
  return (relativePath) => matchers.some((matches) => matches(relativePath));
}

function compile(glob: string, flag: string): Matcher {
  const pattern = glob.replace(/^\.?\/+/, '').replace(/\/+$/, '');
  let test: Matcher;
  try {
    test = picomatch(pattern, { dot: true });
  } catch (error) {
    throw new TypeError(`${flag} ${JSON.stringify(glob)} is not a valid glob`, { cause: error });
  }
  if (pattern.includes('/')) return test;
  return (relativePath) => test(relativePath.slice(relativePath.lastIndexOf('/') + 1));
}
