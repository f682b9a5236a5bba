/**
 * The worker side of the sandbox: one SES Compartment, the variables model code defines, and
 * the bridge to the host. It runs after `lockdown()` (see `worker.ts`) and is never loaded on
 * the host. It builds the compartment and routes the host's messages to the parts that do the
 * work: {@link GuestVariables}, {@link GuestExecution}, {@link VariableListing},
 * {@link GuestCheckpoints}, {@link GuestHostCalls}.
 */
import type { MessagePort } from 'node:worker_threads';
import { OutputBuffer, ReachTracker } from '@rlm/core/sandbox-support';
import { captureCallSites } from './describe-guest-error.js';
import { ExecutionStatus } from './execution-status.js';
import { GuestChannel } from './guest-channel.js';
import { GuestCheckpoints } from './guest-checkpoints.js';
import { evaluateIsolated, givePowers, installEvaluators, makeEval } from './guest-evaluators.js';
import { arrayBufferBytes, GuestExecution } from './guest-execution.js';
import { GuestHostCalls } from './guest-host-calls.js';
import { GuestOutput } from './guest-output.js';
import { GuestTimers } from './guest-timers.js';
import { GuestVariables } from './guest-variables.js';
import { loadAcorn } from './load-acorn.js';
import { RecoverySnapshot } from './recovery-snapshot.js';
import { evalName, importName, kitName, regExpName } from './rewrite-code.js';
import { VariableListing } from './variable-listing.js';
import type { HostMessage, WorkerSetup } from './worker-protocol.js';

/** Messages that may change the variables: they wait for a restore under way. */
const changesVariables = new Set<HostMessage['type']>([
  'restore',
  'execute',
  'set',
  'snapshot-variables',
  'restore-variables',
]);
/**
 * Messages that read no variable's value: texts the host set as bytes may stay undecoded while
 * they come (a listing shows a pending text without decoding it).
 */
const readsNoVariable = new Set<HostMessage['type']>(['list', 'probe', 'set', 'restore']);

/** The answer to the listing after an execution when the next one has begun before it. */
const superseded = 'the listing after this execution was superseded by the next execution';

export class GuestRuntime {
  readonly #channel: GuestChannel;
  readonly #variables: GuestVariables;
  readonly #execution: GuestExecution;
  readonly #listing: VariableListing;
  readonly #checkpoints: GuestCheckpoints;
  readonly #hostCalls: GuestHostCalls;
  /** Executions begun: the listing after one is sent only if no other has begun since. */
  #executions = 0;
  /** Whether checkpoint bytes are being restored (see {@link GuestCheckpoints.restore}). */
  #restoring = false;
  /** Messages that may change the variables, waiting for the restore under way. */
  #waitingForRestore: HostMessage[] = [];

  /** Call after `lockdown()`, once per worker. */
  constructor(port: MessagePort, setup: WorkerSetup) {
    captureCallSites();
    const compartment = new Compartment({ __options__: true, name: 'rlm-sandbox' });
    const global = compartment.globalThis as Record<PropertyKey, unknown>;
    const status = new ExecutionStatus();
    const output = new GuestOutput(new OutputBuffer(setup.outputBuffer), status);
    const timers = new GuestTimers(status, (label, error) => output.reportUncaught(label, error));
    const channel = new GuestChannel(port, setup.transferLimitBytes);
    const hostCalls = new GuestHostCalls(channel, status, global.Error as ErrorConstructor);
    const variables = new GuestVariables(global);
    const reach = new ReachTracker();
    const recovery = new RecoverySnapshot(variables, reach, setup.snapshotLimitBytes);
    variables.observe(recovery);
    this.#channel = channel;
    this.#variables = variables;
    this.#hostCalls = hostCalls;
    this.#listing = new VariableListing(variables, reach, status, channel);
    this.#checkpoints = new GuestCheckpoints(variables, reach, channel);

    givePowers(global, timers);
    const sandboxEval = makeEval(compartment, () => lexicals);
    const dynamicImport = harden(
      (): Promise<never> =>
        Promise.reject(
          new TypeError(
            'import() is not available in the sandbox: everything it offers is a global',
          ),
        ),
    );
    const kit = Object.freeze({
      cell: (name: string) => variables.cellFor(name),
      constant: (name: string): never => {
        throw new TypeError(`Assignment to constant variable ${name}.`);
      },
      readOnly: (name: string): never => {
        throw new TypeError(`${name} is read-only in this sandbox`);
      },
      ref: (name: string): unknown => {
        // A variable made since the rewrite (by this execution) is its cell, whatever the global
        // object holds under its name.
        const cell = variables.cell(name);
        if (cell !== undefined) return cell.v;
        if (name in global) return global[name];
        throw new ReferenceError(`${name} is not defined`);
      },
      g: global,
    });
    const lexicals: object = Object.freeze({
      [kitName]: kit,
      [evalName]: sandboxEval,
      [importName]: dynamicImport,
      [regExpName]: global.RegExp,
    });
    installEvaluators(global, sandboxEval);

    const print = harden((...args: unknown[]) => output.print(args));
    variables.defineFixed('print', print);
    variables.defineFixed(
      'console',
      harden({ log: print, info: print, warn: print, error: print, debug: print }),
    );
    const ending = new Set(setup.endingFunctionNames);
    for (const name of setup.hostFunctionNames) {
      const call = ending.has(name)
        ? { [name]: (...args: unknown[]) => hostCalls.callEnding(name, args) }[name]
        : { [name]: (...args: unknown[]) => hostCalls.call(name, args) }[name];
      variables.defineFixed(name, harden(call as (...args: unknown[]) => Promise<unknown>));
    }
    // What helpers alone see: internal host functions and the isolated evaluator, as lexicals
    // of their own evaluation, never globals.
    const helperScope: Record<string, unknown> = {
      [setup.isolatedEvaluatorName]: harden((source: unknown, globals: unknown) =>
        evaluateIsolated(source, globals, { timers, dynamicImport }),
      ),
    };
    for (const name of setup.internalHostFunctionNames) {
      helperScope[name] = harden(
        { [name]: (...args: unknown[]) => hostCalls.call(name, args) }[name] as () => unknown,
      );
    }
    const helperLexicals = { __moduleShimLexicals__: Object.freeze(helperScope) };
    for (const [name, source] of Object.entries(setup.guestHelpers)) {
      variables.defineFixed(name, harden(compartment.evaluate(`(${source})`, helperLexicals)));
    }
    variables.fixBaseline();
    this.#execution = new GuestExecution({
      compartment,
      lexicals,
      variables,
      reach,
      status,
      output,
      timers,
      hostCalls,
      recovery,
      channel,
      guestHelperNames: new Set(Object.keys(setup.guestHelpers)),
    });

    process.on('unhandledRejection', (reason) =>
      output.reportUncaught('Unhandled rejection', reason),
    );
    process.on('uncaughtException', (error) => output.reportUncaught('Uncaught', error));
  }

  /** Handles one message from the host. */
  handle(message: HostMessage): void {
    const variables = this.#variables;
    // A text the host set as bytes is decoded before anything but a listing reads variables.
    if (readsNoVariable.has(message.type)) variables.pendingTexts.scheduleIdleDecode();
    else variables.pendingTexts.decodeAll();
    // While variables are restored (in slices), what reads them is answered and what may change
    // them waits, in order.
    if (this.#restoring && changesVariables.has(message.type)) {
      this.#waitingForRestore.push(message);
      return;
    }
    switch (message.type) {
      case 'restore': {
        this.#checkpoints.preempt();
        const failures = variables.set(message.variables);
        const unrestored = failures.map((failure) => failure.name);
        // Ready once the parser is loaded too: the host starts an execution's clock at ready, and
        // loading it (long on a busy machine) is the sandbox's start, not the model's time. A
        // parser that failed to load fails each execution instead.
        void loadAcorn()
          .catch(() => undefined)
          .then(() => this.#channel.post({ type: 'ready', unrestored }));
        return;
      }
      case 'execute': {
        this.#checkpoints.preempt();
        const { listingId } = message;
        const execution = ++this.#executions;
        // Listed once the execution, and what it left to run at once, is over: macrotasks later;
        // unless the next execution has begun (its own listing follows it).
        void this.#execution.execute(message.id, message.code).then(() =>
          setImmediate(() => {
            if (execution === this.#executions) this.#listing.send(listingId);
            else
              this.#channel.post({ type: 'reply', id: listingId, ok: false, message: superseded });
          }),
        );
        return;
      }
      case 'probe':
        this.#channel.post({ type: 'memory', arrayBufferBytes: arrayBufferBytes() });
        return;
      case 'list':
        this.#listing.send(message.id);
        return;
      case 'get':
        this.#channel.reply(message.id, () => {
          const meta = variables.meta(message.name);
          if (meta === undefined || meta.owner === 'fixed') {
            throw new Error(`no variable named ${message.name}`);
          }
          return variables.read(message.name);
        });
        return;
      case 'set':
        this.#checkpoints.preempt();
        this.#channel.reply(message.id, () => {
          const failures = variables.set(message.variables);
          if (failures.length > 0) {
            throw new Error(failures.map((failure) => failure.message).join('; '));
          }
          return undefined;
        });
        return;
      case 'snapshot-variables':
        this.#checkpoints.requestSnapshot(message);
        return;
      case 'restore-variables': {
        this.#checkpoints.preempt();
        this.#restoring = true;
        void this.#checkpoints.restore(message.id, message.variables).finally(() => {
          this.#restoring = false;
          const waiting = this.#waitingForRestore;
          this.#waitingForRestore = [];
          for (const next of waiting) this.handle(next);
        });
        return;
      }
      case 'host-result':
        this.#hostCalls.settle(message);
        return;
    }
  }
}
