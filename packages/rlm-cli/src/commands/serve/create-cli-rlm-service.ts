import { formatErrorLine } from '@rlm/core';
import {
  createRlmService,
  formatServedRequestLog,
  type RlmService,
  type RunCatalog,
  type ServedModel,
  ServerSettingsError,
} from '@rlm/server';
import type { ArtifactStore } from '@rlm/core';
import { listRuns, loadTrace, TraceNotFoundError, traceToJsonLines } from '@rlm/trace';
import { checkToolStoreDirectory } from '../../store/check-tool-store-directory.js';
import { cliVersion } from '../../cli-version.js';
import {
  type CliModelAdapters,
  createCliModelWith,
  loadCliModelAdapters,
} from '../../rlm/create-cli-model.js';
import { modelProviders } from '../../run-options/model-providers.js';
import { cliRlmSettings, createCliModels } from '../../rlm/create-cli-rlm.js';
import { modelSettingFlags, subModelSettingFlags } from '../../output/model-setting-flags.js';
import { formatAnswer } from '../../output/format-answer.js';
import { loadToolsModule } from '../../rlm/load-tools-module.js';
import { nameModelFlags } from '../../rlm/name-model-flags.js';
import { openStore } from '../../store/open-store.js';
import { createRunTracer } from '../../rlm/record-run-trace.js';
import { UsageError } from '../../usage-error.js';
import { ContextRoot } from '../../context/context-root.js';
import { contextPathLoader } from './context-path-loader.js';
import {
  parseServedModel,
  type ServeOptions,
  type ServedModelSpec,
} from './parse-serve-arguments.js';

/** A served RLM as the CLI assembles it, and the store it keeps traces in. */
export interface CliRlmService {
  readonly service: RlmService;
  /** Where traces go (`rlm runs` lists them); `undefined` with `--no-store`. */
  readonly store: ArtifactStore | undefined;
}

/**
 * The {@link RlmService} of `rlm serve` and `rlm mcp`: the models the options name (their keys
 * checked now), one sandbox factory, tools and tool store shared by every run, the maxima per
 * request from `--max-model-calls`, `--max-cost` and `--max-wall-time`, files under
 * `--context-root` read as `rlm --context` reads them (confined as `rlm batch` confines a job's
 * context: see {@link ContextRoot}), each run's trace kept in the store, and one log line per
 * request on `stderr` (unless `--quiet`).
 *
 * @throws {UsageError} for a missing key, a tools module or store that cannot open, settings the
 * server refuses; `ContextLoadError` for a `--context-root` that is not a directory.
 */
export async function createCliRlmService(
  options: ServeOptions,
  io: {
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly stderr: NodeJS.WritableStream;
  },
): Promise<CliRlmService> {
  const { run } = options;
  const defaults = await createCliModels(run, io.env);
  // Any model id may name any provider: then every adapter is loaded now, to answer at once.
  const adapters = await loadCliModelAdapters(
    options.anyModel
      ? modelProviders
      : options.models.flatMap((spec) => [spec.root.provider, spec.sub?.provider ?? 'replay']),
  );
  const models: Record<string, ServedModel> = {};
  for (const [index, spec] of options.models.entries()) {
    models[spec.id] = index === 0 ? defaults : createServedModels(adapters, spec, options, io.env);
  }
  const tools = run.toolsModule ? await loadToolsModule(run.toolsModule) : [];
  const store = run.storePath
    ? await openStore(run.storePath, { connectTimeoutMs: run.connectTimeoutMs })
    : undefined;
  try {
    if (run.toolStore) await checkToolStoreDirectory(run.toolStore, { writable: true });
    // Confined as batch and worker jobs are: one rule for every path a request names.
    const contextRoot =
      options.contextRoot === undefined ? undefined : await ContextRoot.open(options.contextRoot);
    const {
      model: _model,
      subModel: _subModel,
      budget: _budget,
      session: _session,
      ...rlm
    } = cliRlmSettings(run, defaults, { tools, persistent: false });
    const service = await createRlmService({
      models,
      ...(options.anyModel
        ? {
            resolveModel: (id) =>
              createServedModels(
                adapters,
                parseServedModel(id.id, 'the model id'),
                options,
                io.env,
              ),
          }
        : {}),
      rlm,
      limits: {
        maxModelCalls: run.budget.maxModelCalls,
        maxWallTimeMs: run.budget.maxWallTimeMs,
        ...(run.maxCostUsd === undefined ? {} : { maxCostUsd: run.maxCostUsd }),
      },
      concurrency: options.concurrency,
      ...(contextRoot === undefined
        ? {}
        : {
            contextRoot: {
              directory: contextRoot.real,
              maxBytes: run.maxContextBytes,
              load: contextPathLoader(contextRoot),
            },
          }),
      ...(store
        ? {
            recordRun: (served) =>
              createRunTracer({
                store,
                traceFile: undefined,
                report: (line) => io.stderr.write(`${line}\n`),
                announce: false,
                metadata: {
                  cli: cliVersion,
                  model: served.model,
                  served: { protocol: served.protocol, requestId: served.requestId },
                },
              }),
            runs: storedRuns(store),
          }
        : {}),
      formatAnswer: (answer) =>
        typeof answer === 'string' ? answer : formatAnswer(answer).replace(/\n$/, ''),
      log: run.quiet ? () => {} : (entry) => io.stderr.write(`${formatServedRequestLog(entry)}\n`),
    });
    return { service, store };
  } catch (error) {
    await store?.close().catch(() => {});
    if (ServerSettingsError.isInstance(error)) {
      throw new UsageError(formatErrorLine(error), { cause: error });
    }
    throw error;
  }
}

/** The models of a served id other than the default, their keys from `env`. */
function createServedModels(
  adapters: CliModelAdapters,
  spec: ServedModelSpec,
  options: ServeOptions,
  env: Readonly<Record<string, string | undefined>>,
): ServedModel {
  const calls = options.run.modelCalls;
  return {
    model: nameModelFlags(createCliModelWith(adapters, spec.root, env, calls), modelSettingFlags),
    ...(spec.sub
      ? {
          subModel: nameModelFlags(
            createCliModelWith(adapters, spec.sub, env, calls),
            subModelSettingFlags,
          ),
        }
      : {}),
  };
}

/** The runs kept in `store`, their traces as JSON lines (see `@rlm/trace`). */
function storedRuns(store: ArtifactStore): RunCatalog {
  return {
    list: (limit) => listRuns(store, { limit }),
    async read(runId) {
      try {
        return {
          mimeType: 'application/jsonl',
          text: traceToJsonLines(await loadTrace(store, runId)),
        };
      } catch (error) {
        if (TraceNotFoundError.isInstance(error)) return undefined;
        throw error;
      }
    },
  };
}
