import { setMaxListeners } from 'node:events';

/**
 * What happens when more host-function calls are waiting than `maxPending`:
 * - `unbounded`: all are kept; a `queue-overload` warning is emitted each time the backlog
 *   crosses `maxPending`.
 * - `dropping`: the new call is refused (model code sees an error).
 * - `sliding`: the oldest call still waiting for a model slot is refused and the new one kept.
 */
export interface CommandQueueSettings {
  readonly strategy?: 'unbounded' | 'dropping' | 'sliding';
  /** Default 1,024. */
  readonly maxPending?: number;
}

/** One host call from model code, from admission until it settles. */
export interface BridgeRequest {
  /** Unique within a run: `bridge-<n>`. */
  readonly id: string;
  /** The call whose code made the request. */
  readonly callId: string;
  /** The host function called. */
  readonly name: string;
  /** The arguments as they crossed from the sandbox. */
  readonly args: readonly unknown[];
  /** When the request was admitted (ms since the epoch). */
  readonly startedAt: number;
  /**
   * Aborted when the request ends early (dropped, or its call ended): stops its model calls.
   * Made on first read (most host calls never need one); read after such an end, it is
   * already aborted.
   */
  readonly signal: AbortSignal;
  /** True until the request starts real work (a model slot, a child, a host call). */
  waiting: boolean;
}

/** How a request ended: its value, or the error model code sees. */
export type BridgeOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: Error };

/** Runs one request; may return a value or a promise, throw, or reject. */
export type BridgeHandler = (request: BridgeRequest) => unknown;

/** Hooks the router reports through. Neither may throw (a throw is ignored). */
export interface BridgeRouterHooks {
  /** Called once per request, just before its promise settles. */
  readonly settled: (request: BridgeRequest, outcome: BridgeOutcome) => void;
  /** Called once each time the backlog first passes `maxPending` under `unbounded`. */
  readonly overloaded: (callId: string, backlog: number) => void;
}

/** The result of {@link BridgeRouter.admit}. */
export type Admission =
  | { readonly request: BridgeRequest; readonly result: Promise<unknown> }
  | { readonly refusal: Error };

interface Entry {
  readonly request: OpenRequest;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The bridge between model code and the host: admits requests under the overload policy,
 * dispatches each to its handler and settles each exactly once, whatever the handler does
 * (returns, throws, rejects, or never settles until its call ends and settles it).
 */
export class BridgeRouter {
  readonly #policy: Required<CommandQueueSettings>;
  readonly #hooks: BridgeRouterHooks;
  readonly #open = new Map<string, Entry>();
  #nextId = 0;
  #overloaded = false;

  constructor(policy: Required<CommandQueueSettings>, hooks: BridgeRouterHooks) {
    this.#policy = policy;
    this.#hooks = hooks;
  }

  /** Requests admitted and not yet settled. */
  get size(): number {
    return this.#open.size;
  }

  /** The open request with this id, or `undefined` once it has settled. */
  get(requestId: string): BridgeRequest | undefined {
    return this.#open.get(requestId)?.request;
  }

  /**
   * Admits a new request under the overload policy (`commandQueue`): `unbounded` admits and
   * warns once, `dropping` refuses the new request, `sliding` drops the oldest request still
   * waiting. The returned promise settles exactly once.
   */
  admit(callId: string, name: string, args: readonly unknown[]): Admission {
    const { strategy, maxPending } = this.#policy;
    const backlog = this.#open.size;
    if (backlog >= maxPending) {
      if (strategy === 'unbounded') {
        if (!this.#overloaded) {
          this.#overloaded = true;
          report(() => this.#hooks.overloaded(callId, backlog));
        }
      } else {
        const oldest =
          strategy === 'sliding'
            ? [...this.#open.values()].find((entry) => entry.request.waiting)
            : undefined;
        if (!oldest) {
          return {
            refusal: new Error(
              `${name}: host call refused: ${backlog} calls are already pending (commandQueue.maxPending is ${maxPending}); await some before starting more`,
            ),
          };
        }
        this.settle(oldest.request.id, {
          ok: false,
          error: new Error(
            `${oldest.request.name} dropped: newer host calls replaced it (sliding queue)`,
          ),
        });
      }
    }
    this.#nextId += 1;
    const request = new OpenRequest(`bridge-${this.#nextId}`, callId, name, args);
    const result = new Promise<unknown>((resolve, reject) => {
      this.#open.set(request.id, { request, resolve, reject });
    });
    return { request, result };
  }

  /**
   * Runs `handler` for an open request and settles the request with what it returns. A
   * synchronous throw, a rejected promise and a non-Error rejection all become an error that
   * model code can catch. A handler that never settles leaves the request open until
   * {@link settle} is called for it (the call ending does that).
   */
  dispatch(requestId: string, handler: BridgeHandler): void {
    const entry = this.#open.get(requestId);
    if (!entry) return;
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(handler(entry.request));
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => this.settle(requestId, { ok: true, value }),
      (error: unknown) =>
        this.settle(requestId, { ok: false, error: toError(error, entry.request.name) }),
    );
  }

  /**
   * Settles a request; later calls for the same id do nothing. An early end (an error) aborts
   * the request's signal so its model calls stop.
   */
  settle(requestId: string, outcome: BridgeOutcome): void {
    const entry = this.#open.get(requestId);
    if (!entry) return;
    this.#open.delete(requestId);
    if (this.#open.size < this.#policy.maxPending) this.#overloaded = false;
    if (!outcome.ok) entry.request.abort(outcome.error);
    report(() => this.#hooks.settled(entry.request, outcome));
    if (outcome.ok) entry.resolve(outcome.value);
    else entry.reject(outcome.error);
  }
}

class OpenRequest implements BridgeRequest {
  readonly startedAt = Date.now();
  waiting = true;
  #controller: AbortController | undefined;
  #abortReason: { readonly reason: unknown } | undefined;

  constructor(
    readonly id: string,
    readonly callId: string,
    readonly name: string,
    readonly args: readonly unknown[],
  ) {}

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      // One request may wait on many model slots at once (llm_query_batched).
      setMaxListeners(0, this.#controller.signal);
      if (this.#abortReason) this.#controller.abort(this.#abortReason.reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    this.#abortReason ??= { reason };
    this.#controller?.abort(reason);
  }
}

/** Runs a hook; a failing hook never stops a request from settling. */
function report(hook: () => void): void {
  try {
    hook();
  } catch {
    // Hooks are telemetry: their failures are theirs.
  }
}

/**
 * The error model code sees: a fresh `Error` carrying only the message, so no host object (a
 * stack, a cause, a non-cloneable value) has to cross into the sandbox.
 */
function toError(error: unknown, name: string): Error {
  const message = messageOf(error);
  return new Error(message ? message : `${name} failed`);
}

function messageOf(error: unknown): string {
  if (typeof error === 'string') return error;
  try {
    const message = (error as { message?: unknown } | null)?.message;
    return typeof message === 'string' ? message : '';
  } catch {
    return '';
  }
}
