import { onlyFlagBefore } from '../../parse-command-arguments.js';
import { parseRunFlags } from '../../run-options/parse-run-options.js';
import { defaultStorePath } from '../../run-options/run-options.js';

/** `rlm [--store <file>] store ...`: the words after `store` and the store they work on. */
export interface StoreArguments {
  /** The words after `store`, parsed by the command. */
  readonly argv: readonly string[];
  /** `--store`, else the default store. */
  readonly storePath: string;
}

/**
 * Recognises the maintenance command `rlm store`: only `--store <file>` comes before the word
 * `store`. Returns `undefined` for any other command line.
 */
export function parseStoreArguments(argv: readonly string[]): StoreArguments | undefined {
  const storeAt = argv.indexOf('store');
  if (storeAt < 0 || !onlyFlagBefore(argv.slice(0, storeAt), '--store')) return undefined;
  const before = parseRunFlags(argv.slice(0, storeAt)).values;
  return { argv: argv.slice(storeAt + 1), storePath: before.store ?? defaultStorePath };
}
