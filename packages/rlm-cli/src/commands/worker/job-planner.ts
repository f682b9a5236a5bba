import { defaultModelPrices, findModelPrice } from '@rlm/core';
import type { DirectBaselineSettings } from '@rlm/eval';
import { describeJobId } from '../../jobs/describe-job-id.js';
import { queuedEvalRunNamespace } from '../../jobs/eval-run-namespace.js';
import type { QueuedJobData } from '../../queue/batch-queue-job.js';
import {
  modelText,
  type QueuedRunSettings,
  readQueuedRunSettings,
} from '../../queue/queued-run-settings.js';
import { causeOf } from '../../queue/rate-limited-log.js';
import { createCliModel } from '../../rlm/create-cli-model.js';
import { createCliModels, createCliRlmFactory } from '../../rlm/create-cli-rlm.js';
import type { CliOptions } from '../../run-options/run-options.js';
import { applyQueuedRunSettings } from './apply-queued-run-settings.js';
import type { WorkerLog } from './worker-log.js';

/** Makes a job's RLM on its view of the store. */
export type RlmFactory = ReturnType<typeof createCliRlmFactory>;

/** How a job runs: with the worker's flags, the settings it carries, or as the direct baseline. */
export type JobPlan =
  | {
      readonly kind: 'own' | 'rlm';
      readonly cli: CliOptions;
      readonly bounded: readonly string[];
      readonly createRlm: RlmFactory;
      /**
       * Whether a job taken over from a killed worker resumes its checkpoint: its RLM's runs are
       * its own (the worker's flags, or an eval variant's namespace of runs). Not an eval job
       * queued by an earlier version, without a variant: it could resume another variant's.
       */
      readonly resumable: boolean;
    }
  | {
      readonly kind: 'direct';
      readonly cli: CliOptions;
      readonly bounded: readonly string[];
      readonly baseline: Omit<DirectBaselineSettings, 'signal'>;
    };

/** What a worker plans jobs with. */
export interface JobPlannerParts {
  /** The worker's own flags. */
  readonly cli: CliOptions;
  /** The RLMs of the worker's own flags. */
  readonly createRlm: RlmFactory;
  /** `--tools`: every job's host tools. */
  readonly tools: Parameters<typeof createCliRlmFactory>[2]['tools'];
  /** Where the models' keys come from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: WorkerLog;
}

/** RLM factories a worker keeps for the settings of jobs (an eval's variants). */
const keptFactories = 8;

/**
 * How a worker runs each job: with its own flags, or with the run settings the job carries,
 * checked and bounded by its own; keeps the RLM factories of the last few settings.
 */
export class JobPlanner {
  readonly #parts: JobPlannerParts;
  /** RLM factories of the run settings jobs carried lately (eval variants), by settings. */
  readonly #factories = new Map<string, RlmFactory>();

  constructor(parts: JobPlannerParts) {
    this.#parts = parts;
  }

  /**
   * How to run a job: with this worker's flags, or with the settings it carries, checked and
   * bounded by this worker's. Throws for settings this worker refuses and for a model it has no
   * key for.
   */
  async plan(data: QueuedJobData): Promise<JobPlan> {
    const own = this.#parts.cli;
    if (data.run === undefined) {
      return {
        kind: 'own',
        cli: own,
        bounded: [],
        createRlm: this.#parts.createRlm,
        resumable: true,
      };
    }
    const settings = readQueuedRunSettings(data.run);
    const { cli, bounded } = applyQueuedRunSettings(own, settings);
    if (bounded.length > 0) {
      this.#parts.log.report(
        causeOf(`bounded ${bounded.join(' ')}`),
        `rlm: worker: id ${describeJobId(data.id)}: it asks for more than this worker allows (${bounded.join(', ')}): this worker's limits apply`,
      );
    }
    if (settings.kind === 'rlm') {
      const runNamespace = queuedEvalRunNamespace(data);
      return {
        kind: 'rlm',
        cli,
        bounded,
        createRlm: await this.#factoryFor(settings, cli, runNamespace),
        resumable: runNamespace !== undefined,
      };
    }
    return {
      kind: 'direct',
      cli,
      bounded,
      baseline: {
        model: await createCliModel(cli.model, this.#parts.env, cli.modelCalls),
        windowTokens: settings.windowTokens!,
        price: findModelPrice({ ...defaultModelPrices, ...cli.prices }, modelText(cli.model)),
      },
    };
  }

  /**
   * The RLM factory of a job's settings and namespace of runs: kept for the last few (an eval's
   * variants), so that their jobs share models and a warm sandbox.
   */
  async #factoryFor(
    settings: QueuedRunSettings,
    cli: CliOptions,
    runNamespace: string | undefined,
  ): Promise<RlmFactory> {
    const key = JSON.stringify([settings, runNamespace ?? null]);
    const kept = this.#factories.get(key);
    if (kept !== undefined) return kept;
    const factory = createCliRlmFactory(cli, await createCliModels(cli, this.#parts.env), {
      tools: this.#parts.tools,
      persistent: false,
      ...(runNamespace === undefined ? {} : { runNamespace }),
    });
    if (this.#factories.size >= keptFactories) {
      this.#factories.delete(this.#factories.keys().next().value!);
    }
    this.#factories.set(key, factory);
    return factory;
  }
}
