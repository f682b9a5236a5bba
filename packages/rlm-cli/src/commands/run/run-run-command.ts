import type { ArtifactStore, RLM } from '@rlm/core';
import type { RunCliOptions } from '../../cli-io.js';
import { checkContextFile } from '../../context/check-context-file.js';
import { loadCliContext } from '../../context/load-cli-context.js';
import { disposeThenClose } from '../../dispose-then-close.js';
import { jsonRequested, reportCommandError } from '../../output/report-command-error.js';
import { createCliModels, createCliRlm } from '../../rlm/create-cli-rlm.js';
import { loadToolsModule } from '../../rlm/load-tools-module.js';
import { withStoredReplays } from '../../rlm/with-stored-replays.js';
import type { CliOptions } from '../../run-options/run-options.js';
import { checkToolStoreDirectory } from '../../store/check-tool-store-directory.js';
import { openStore } from '../../store/open-store.js';
import { StoreFailureWatch } from '../../store/watch-store-failures.js';
import { AnswerSink } from './answer-sink.js';
import { Session } from './session.js';

/**
 * Runs `rlm [options] [query...]`: one query from the command line, a REPL on a terminal, or one
 * query per piped line, in one session (one RLM, one context). Resolves to the exit code: 0
 * answered, 1 a query failed, 2 bad usage or context (nothing was sent to a model) or the run is
 * held by another process, 3 answered but the store failed during the run (`--store-errors
 * fail`), 130 interrupted, 143 terminated. Never rejects: every error is printed on `stderr` as
 * one line starting with `rlm: `.
 */
export async function runRunCommand(command: CliOptions, options: RunCliOptions): Promise<number> {
  const { stdout, stderr } = options;
  let quitNow: (exitCode: number) => void = () => {};
  const forceQuit = new Promise<number>((resolve) => {
    quitNow = resolve;
  });
  let rlm: RLM | undefined;
  let store: ArtifactStore | undefined;
  // Until the flags are read, `--json` anywhere before `--` asks for a JSON error report.
  let json = jsonRequested(options.argv);
  try {
    const cli = await withStoredReplays(command);
    json = cli.json;
    // Keys are checked here, before any file is read or any model is called.
    const models = await createCliModels(cli, options.env);
    if (cli.contextFile !== undefined && (await checkContextFile(cli.contextFile)) === 'fifo') {
      stderr.write(
        `rlm: --context ${cli.contextFile} is a FIFO: waiting for a writer to send the context and close it\n`,
      );
    }
    const answers = await AnswerSink.open({ ...cli, stdout, stderr });
    // A text file's bytes go to the sandbox as they are, shared, and are decoded there.
    const context = await loadCliContext(cli, stderr, { utf8Text: true });
    const tools = cli.toolsModule ? await loadToolsModule(cli.toolsModule) : [];
    store = cli.storePath
      ? await openStore(cli.storePath, { connectTimeoutMs: cli.connectTimeoutMs })
      : undefined;
    // After the artifact store: the default tool store lives beside it.
    if (cli.toolStore) await checkToolStoreDirectory(cli.toolStore, { writable: true });
    const watch = new StoreFailureWatch((failure) => {
      stderr.write(
        `rlm: the store failed (${failure.operation}): ${failure.message}; the run goes on, but what it stores from now may be lost${cli.storeErrors === 'fail' ? ' (it will exit 3; --store-errors warn to exit 0)' : ''}\n`,
      );
    });
    rlm = createCliRlm(cli, models, {
      tools,
      artifacts: store ? watch.wrap(store) : undefined,
      // Piped and interactive queries form one session: context_0..n, variables, history.
      persistent: true,
    });
    const session = new Session(rlm, context, cli, options, answers, quitNow, { store, watch });
    const run =
      cli.query !== undefined
        ? session.runOnce(cli.query)
        : options.stdin.isTTY
          ? session.runRepl()
          : session.runPipe();
    // After a forced quit the run may still settle; nobody waits for it then.
    run.catch(() => {});
    return await Promise.race([run, forceQuit]);
  } catch (error) {
    return reportCommandError(error, { json, stdout, stderr });
  } finally {
    const disposed = disposeThenClose(rlm, store);
    await Promise.race([disposed, forceQuit]);
  }
}
