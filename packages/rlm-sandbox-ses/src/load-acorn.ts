import type * as Acorn from 'acorn';

let acorn: typeof Acorn | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the JavaScript parser once. The worker starts loading it as soon as it has locked down
 * (a spare has it loaded before a sandbox takes it) and reports ready to its sandbox only once
 * it is loaded, so that no execution's time counts it; each execution awaits it before
 * rewriting code.
 */
export function loadAcorn(): Promise<void> {
  loading ??= import('acorn').then((module) => {
    acorn = module;
  });
  return loading;
}

/** The parser, once {@link loadAcorn} has resolved; throws before. */
export function loadedAcorn(): typeof Acorn {
  if (acorn === undefined) throw new Error('@rlm/sandbox-ses: the parser is not loaded yet');
  return acorn;
}
