import { ServedRequestError } from './errors/served-request-error.js';
import { ServerSettingsError } from './errors/server-settings-error.js';
import { type ServedModel, withCurrentNames } from './served-model.js';
import {
  defaultServedModelAlias,
  parseServedModelId,
  type ServedModelId,
} from './served-model-id.js';

/**
 * Resolves a model id that is not listed, e.g. by creating the models its
 * `rlm:<provider>:<model-id>[+...]` names; called for each request that names one (cache in it
 * if creating models is costly). Returns `undefined` (or throws, with a message the
 * client is shown) when it cannot be served.
 */
export type ServedModelResolver = (id: ServedModelId) => ServedModel | undefined;

/** The model a request runs on, resolved. */
export interface ResolvedServedModel {
  /** The id it is served as (the alias `rlm` resolves to the first listed id). */
  readonly id: string;
  /** Its models, under the current names (`model`, `subModel`) whichever names they were given. */
  readonly model: ServedModel;
}

/**
 * The models a server answers to: the listed ids (the first is the default, also served as
 * `rlm`), and any other id that `resolve` accepts.
 */
export class ServedModelCatalog {
  readonly #models: ReadonlyMap<string, ServedModel>;
  readonly #resolve: ServedModelResolver | undefined;

  /**
   * @throws {ServerSettingsError} when `models` is empty, lists the reserved id `rlm`, or lists an
   * id without a root model.
   */
  constructor(models: Readonly<Record<string, ServedModel>>, resolve?: ServedModelResolver) {
    this.#models = new Map(
      Object.entries(models).map(([id, served]) => [id, withCurrentNames(served, id)]),
    );
    this.#resolve = resolve;
    if (this.#models.size === 0) {
      throw new ServerSettingsError(
        '@rlm/server: models is empty; list at least one, e.g. { "rlm:anthropic:claude-sonnet-5-5": { model } }',
      );
    }
    if (this.#models.has(defaultServedModelAlias)) {
      throw new ServerSettingsError(
        `@rlm/server: models lists "${defaultServedModelAlias}", which names the first listed model; list each model under its own id`,
      );
    }
  }

  /** The ids `GET /v1/models` lists: `rlm`, then each listed id, the default first. */
  get ids(): readonly string[] {
    return [defaultServedModelAlias, ...this.#models.keys()];
  }

  /** The default model's id (the first listed). */
  get defaultId(): string {
    return this.#models.keys().next().value as string;
  }

  /**
   * The model `requested` names; `undefined` (no `model` in the request) and `rlm` name the
   * default.
   *
   * @throws {ServedRequestError} 400 when `requested` is not a string, 404 (`model_not_found`)
   * when it is not served.
   */
  resolve(requested: unknown): ResolvedServedModel {
    if (requested !== undefined && typeof requested !== 'string') {
      throw new ServedRequestError(
        `model must be a string such as "${defaultServedModelAlias}" (got ${typeof requested})`,
        { status: 400, code: 'invalid_model', param: 'model' },
      );
    }
    const id =
      requested === undefined || requested === defaultServedModelAlias ? this.defaultId : requested;
    const listed = this.#models.get(id);
    if (listed) return { id, model: listed };
    const parsed = parseServedModelId(id);
    let reason = '';
    if (parsed && this.#resolve) {
      try {
        const model = this.#resolve(parsed);
        if (model) return { id, model: withCurrentNames(model, id) };
      } catch (error) {
        reason = ` (${error instanceof Error ? error.message : String(error)})`;
      }
    }
    const others = this.#resolve
      ? ', or any rlm:<provider>:<model-id>[+<provider>:<model-id>]'
      : '';
    throw new ServedRequestError(
      `model ${JSON.stringify(id)} is not served here${reason}; use one of ${this.ids.join(', ')}${others} (GET /v1/models lists them)`,
      { status: 404, code: 'model_not_found', param: 'model' },
    );
  }
}
