import type { ArtifactRef } from '../artifact-store.js';
import { describeContext } from '../describe-context.js';
import type { GenerateResult, ToolCall, ToolResultPart } from '../language-model.js';
import {
  buildContextMessage,
  buildContinueMessage,
  buildExtractMessage,
  buildStepStatus,
  formatExecution,
} from '../prompts.js';
import { submitToolName } from '../submit-tool.js';
import { compactedStepCount, compactedSteps } from '../bound-history.js';
import { ContextCopies, redactContextCopies } from '../context-copies.js';
import type { CurrentQueryHistory } from '../history-entry.js';
import { truncateOutput } from '../truncate-output.js';
import { formatVariables, type VariableSyncReason } from '../variable-space.js';
import { buildRequest } from './build-request.js';
import { appendMessage } from '../append-message.js';
import { type CallState, isRunning, type RunningCall } from './call-state.js';
import type { BridgeCommand, Command, StepCommand } from './commands.js';
import { errorStreakAfter, tooManyErrors } from './error-streak.js';
import { extractFinal, noFinalAnswer, type PendingFinal, readFinalAnswer } from './final-answer.js';
import type { ModelGateway, ModelRequest } from './model-gateway.js';
import { planStep, toolError } from './plan-step.js';
import type { ResolvedSettings } from './resolved-settings.js';
import type { Scheduler } from './scheduler.js';

/** What the installed features add to a step (the run's `FeatureSet`). */
export interface StepHooks {
  /** Lines for the system prompt's list of what the REPL has. */
  readonly replHelp: readonly string[];
  /** Sections appended to the system prompt, read at each step. */
  promptSections(): Promise<string[]>;
  /** Work on the sandbox that must finish before the loop runs code in it or reads from it. */
  beforeSandboxUse(call: RunningCall): Promise<void>;
  /** Notes for the model, taken once, shown with the next step's outputs. */
  takeNotes(call: RunningCall): string[];
  /** After a step whose code ran, once the variables are synced. */
  afterExecutedStep(call: RunningCall): void;
  /** A stored copy of an accepted answer, if a feature keeps one. */
  onFinal(call: CallState, answer: unknown): Promise<ArtifactRef | undefined>;
}

/**
 * The handlers of a call's steps: ask the model, plan the response (`plan-step.ts`), run its
 * code, record it in the conversation, read a final answer (`final-answer.ts`), and the forced
 * final prompt when iterations run out. Each handler changes its call; the slow work it
 * starts (a model call, code, a variable sync) only reads it and returns the next command.
 */
export class StepHandlers {
  readonly #kernel: Scheduler;
  readonly #settings: ResolvedSettings;
  readonly #gateway: ModelGateway;
  readonly #features: StepHooks;
  /** Per call: a cache of its context's index, not state of the call. */
  readonly #copies = new WeakMap<CallState, ContextCopies>();

  constructor(
    kernel: Scheduler,
    settings: ResolvedSettings,
    gateway: ModelGateway,
    features: StepHooks,
  ) {
    this.#kernel = kernel;
    this.#settings = settings;
    this.#gateway = gateway;
    this.#features = features;
  }

  /** Handles a step command for `call` (live; running once its workspace is ready). */
  handle(command: Exclude<StepCommand, BridgeCommand>, call: CallState): void {
    if (!isRunning(call)) return;
    switch (command.type) {
      case 'WorkspaceReady':
        this.#workspaceReady(call, command);
        return;
      case 'VariablesSynced':
        this.#variablesSynced(call, command.reason);
        return;
      case 'GenerateStep':
        this.#generateStep(call);
        return;
      case 'ModelAnswered':
        this.#modelAnswered(call, command.response);
        return;
      case 'RecordFinal':
        call.pendingFinal ??= command.final;
        return;
      case 'HostNote':
        call.hostNotes.push(command.note);
        return;
      case 'CodeExecuted':
        this.#codeExecuted(call, command);
        return;
      case 'AnswerRejected':
        this.#kernel.emit(call, {
          type: 'warning',
          code: 'answer-rejected',
          message: command.problem,
        });
        this.#recordStep(
          call,
          command.response,
          command.outputs,
          command.toolResults,
          command.asNote ? command.problem : undefined,
        );
        call.pendingFinal = undefined;
        this.#kernel.enqueue({ type: 'GenerateStep', callId: call.id });
        return;
      case 'ExtractAnswered':
        this.#extractAnswered(call, command.response);
        return;
    }
  }

  #workspaceReady(call: RunningCall, command: Extract<Command, { type: 'WorkspaceReady' }>): void {
    call.earlierHistory = command.setup.history;
    const start = command.resumed ?? {
      messages: [
        {
          role: 'user',
          content: buildContextMessage(
            call.query,
            describeContext(call.context),
            command.setup.counts,
          ),
        },
      ],
      iteration: 0,
      events: [],
    };
    call.messages.push(...start.messages);
    call.iteration = start.iteration;
    for (const event of start.events) this.#kernel.emit(call, event);
    this.#sync(call, 'start');
  }

  /** Refreshes the call's variable listing, publishes the outcome, then `VariablesSynced`. */
  #sync(call: RunningCall, reason: VariableSyncReason): void {
    this.#kernel.spawn(call.id, async () => {
      const outcome = await call.workspace.variables.sync(call.iteration);
      if (outcome.ok) {
        this.#kernel.emit(call, {
          type: 'variables-updated',
          reason,
          iteration: call.iteration,
          variables: outcome.snapshot.variables,
          freshness: outcome.snapshot.freshness,
        });
      } else {
        this.#kernel.emit(call, {
          type: 'variable-sync-failed',
          reason,
          message: outcome.message,
          retries: outcome.retries,
          timedOut: outcome.timedOut,
        });
      }
      return { type: 'VariablesSynced', callId: call.id, reason };
    });
  }

  #variablesSynced(call: RunningCall, reason: VariableSyncReason): void {
    switch (reason) {
      case 'extract':
        appendMessage(call.messages, {
          role: 'user',
          content: buildExtractMessage(
            this.#gateway.submitToolOffered,
            formatVariables(call.workspace.variables.cached),
          ),
        });
        this.#kernel.spawn(call.id, async () => ({
          type: 'ExtractAnswered',
          callId: call.id,
          response: await this.#gateway.step(call, { tool: submitToolName }, () =>
            this.#request(call),
          ),
        }));
        return;
      case 'code-executed':
        this.#features.afterExecutedStep(call);
        break;
      default:
        break;
    }
    this.#kernel.enqueue({ type: 'GenerateStep', callId: call.id });
  }

  /** The request of a step as the call stands now (the features' sections read fresh). */
  async #request(call: RunningCall): Promise<ModelRequest> {
    const sections = await this.#features.promptSections();
    return buildRequest({
      systemPrompt: this.#settings.systemPrompt,
      recursion: call.depth + 1 < this.#settings.maxDepth,
      codeLanguage: this.#settings.codeLanguages[0] ?? 'repl',
      replHelp: this.#features.replHelp,
      models: this.#settings.modelChoice.menu(this.#settings.subLlm, this.#settings.llm),
      sections,
      submitTool: this.#gateway.submitTool,
      messages: call.messages,
      historyBudgetChars: this.#settings.historyBudgetChars,
    });
  }

  #generateStep(call: RunningCall): void {
    if (call.iteration >= this.#settings.maxIterations) {
      this.#sync(call, 'extract');
      return;
    }
    call.iteration += 1;
    call.stepStartedAt = Date.now();
    call.pendingFinal = undefined;
    call.hostNotes.length = 0;
    appendMessage(call.messages, {
      role: 'user',
      content: buildStepStatus(
        call.iteration,
        this.#settings.maxIterations,
        this.#gateway.remainingBudget,
      ),
    });
    this.#kernel.emit(call, { type: 'step-start', iteration: call.iteration });
    const compacted = compactedStepCount(call.messages, this.#settings.historyBudgetChars);
    const history = compacted > call.stepsInHistory ? this.#historyOf(call, compacted) : undefined;
    if (history) call.stepsInHistory = compacted;
    this.#kernel.spawn(call.id, async () => {
      // Steps leaving the prompt stay readable from code, before the model is asked.
      if (history) await call.workspace.variables.inject('history', history, true);
      return {
        type: 'ModelAnswered',
        callId: call.id,
        response: await this.#gateway.step(call, 'auto', () => this.#request(call)),
      };
    });
  }

  /** `history` once the first `compacted` steps have left the prompt. */
  #historyOf(call: CallState, compacted: number): unknown[] {
    const current: CurrentQueryHistory = {
      query: call.query,
      steps: compactedSteps(call.messages, compacted, this.#settings.codeLanguages),
    };
    return [...call.earlierHistory, current];
  }

  #modelAnswered(call: RunningCall, response: GenerateResult): void {
    if (response.text.trim().length > 0) {
      call.lastText = response.text;
      this.#kernel.emit(call, { type: 'text', iteration: call.iteration, text: response.text });
    }
    const plan = planStep(response, {
      emptyStreak: call.emptyStreak,
      stallLimit: this.#settings.stallLimit,
      codeLanguages: this.#settings.codeLanguages,
      maxCodeBlocks: this.#settings.maxCodeBlocksPerResponse,
    });
    call.emptyStreak = plan.emptyStreak;
    for (const warning of plan.warnings) this.#kernel.emit(call, { type: 'warning', ...warning });
    if (plan.kind === 'stall') {
      this.#sync(call, 'extract');
      return;
    }
    if (plan.kind === 'finalize' && plan.submitCall) {
      this.#resolveFinal(call, plan.final, response, [], plan.submitCall, plan.toolResults);
      return;
    }
    // Code to run, or none (a FINAL in the prose, or nothing): either way the sandbox is used
    // once the features are done with it (a checkpoint snapshot, a resume's restore).
    const blocks = plan.kind === 'execute' ? plan.blocks : [];
    const fallbackFinal = plan.kind === 'finalize' ? plan.final : plan.fallbackFinal;
    const notes = plan.kind === 'finalize' ? [] : plan.notes;
    this.#kernel.spawn(call.id, async () => {
      await this.#features.beforeSandboxUse(call);
      const featureNotes = this.#features.takeNotes(call);
      const { outputs, errors } = await this.#runBlocks(call, blocks);
      return {
        type: 'CodeExecuted',
        callId: call.id,
        response,
        outputs,
        errors,
        toolResults: plan.toolResults,
        notes: [...notes, ...featureNotes],
        fallbackFinal,
      };
    });
  }

  /**
   * Spawned work: runs the blocks in order until one records a final answer or the call ends.
   * Resolves with what the model is shown of each block that ran, and the error each ended with.
   */
  async #runBlocks(
    call: RunningCall,
    blocks: readonly { readonly code: string; readonly language: string }[],
  ): Promise<{ outputs: string[]; errors: (string | undefined)[] }> {
    const outputs: string[] = [];
    const errors: (string | undefined)[] = [];
    for (const [index, block] of blocks.entries()) {
      if (call.done || call.pendingFinal) break;
      this.#kernel.emit(call, { type: 'code', iteration: call.iteration, index, code: block.code });
      const notesBefore = call.hostNotes.length;
      const result = await call.workspace.sandbox.execute(block.code, {
        timeoutMs: this.#settings.execTimeoutMs,
        signal: call.abort.signal,
      });
      this.#kernel.enqueue({ type: 'BlockEnded', callId: call.id });
      const output = result.output.endsWith('\n') ? result.output.slice(0, -1) : result.output;
      const shownToModel = this.#presentOutput(call, output, result.error);
      const notes = call.hostNotes.slice(notesBefore);
      outputs.push(
        formatExecution(
          block.code,
          [shownToModel, ...notes].filter(Boolean).join('\n'),
          block.language,
        ),
      );
      errors.push(result.error);
      this.#kernel.emit(call, {
        type: 'execution',
        iteration: call.iteration,
        index,
        output,
        shownToModel,
        durationMs: result.durationMs,
        ...(result.error === undefined ? {} : { error: result.error }),
      });
    }
    return { outputs, errors };
  }

  /** The finder of copies of the call's context, made once per call (its index when needed). */
  #copiesOf(call: CallState): ContextCopies {
    let copies = this.#copies.get(call);
    if (!copies) {
      copies = new ContextCopies(call.context);
      this.#copies.set(call, copies);
    }
    return copies;
  }

  /**
   * What the model sees of one execution: its copies of the context redacted, truncated, the
   * error after the output.
   */
  #presentOutput(call: CallState, output: string, error: string | undefined): string {
    const shown = truncateOutput(
      redactContextCopies(output, this.#copiesOf(call), {
        contextLength: call.contextLength,
        ratio: this.#settings.redactionRatio,
        minChars: this.#settings.redactionMinChars,
      }),
      this.#settings.maxOutputChars,
    );
    if (error === undefined) return shown;
    const errorText = truncateOutput(
      /^\w*Error\b/.test(error) ? error : `Error: ${error}`,
      this.#settings.maxOutputChars,
    );
    return shown.length > 0 ? `${shown}\n${errorText}` : errorText;
  }

  #codeExecuted(call: RunningCall, command: Extract<Command, { type: 'CodeExecuted' }>): void {
    const { response, outputs, toolResults, notes } = command;
    // Code's SUBMIT / FINAL_VAR outranks a FINAL in the prose.
    const pending = call.pendingFinal ?? command.fallbackFinal;
    if (pending) {
      this.#resolveFinal(call, pending, response, outputs, undefined, toolResults);
      return;
    }
    call.errorStreak = errorStreakAfter(call.errorStreak, command.errors);
    const stop = tooManyErrors(
      call.errorStreak,
      this.#settings.maxConsecutiveErrors,
      { iterations: call.iteration, depth: call.depth, lastText: call.lastText },
      command.errors.findLast((error) => error !== undefined) ?? '',
    );
    if (stop) throw stop;
    this.#recordStep(call, response, outputs, toolResults, notes.join('\n\n') || undefined);
    this.#kernel.emit(call, {
      type: 'step-complete',
      iteration: call.iteration,
      durationMs: Date.now() - call.stepStartedAt,
    });
    if (outputs.length === 0) this.#kernel.enqueue({ type: 'GenerateStep', callId: call.id });
    else this.#sync(call, 'code-executed');
  }

  /** Appends one step (the response, its outputs and tool results) to the conversation. */
  #recordStep(
    call: CallState,
    response: GenerateResult,
    outputs: readonly string[],
    toolResults: readonly ToolResultPart[],
    note?: string,
  ): void {
    const assistantParts = [
      ...(response.text.trim().length > 0
        ? [
            {
              type: 'text' as const,
              text: truncateOutput(response.text, this.#settings.maxResponseChars, 'response'),
            },
          ]
        : []),
      ...response.toolCalls.map((toolCall) => ({ type: 'tool-call' as const, call: toolCall })),
    ];
    if (assistantParts.length === 0) {
      this.#kernel.emit(call, {
        type: 'warning',
        code: 'empty-response',
        message: 'The model answered with nothing.',
      });
    } else {
      appendMessage(call.messages, { role: 'assistant', content: assistantParts });
    }
    // The outputs are one text part and a note another, so `history` reads outputs back exactly.
    const feedback = [
      ...(outputs.length > 0 ? [outputs.join('\n\n')] : []),
      ...(note ? [note] : []),
    ];
    if (feedback.length === 0) feedback.push(buildContinueMessage(this.#gateway.submitToolOffered));
    appendMessage(call.messages, {
      role: 'user',
      content: [...toolResults, ...feedback.map((text) => ({ type: 'text' as const, text }))],
    });
  }

  /**
   * Reads and checks a final answer (spawned). An accepted one finalizes the call; one that
   * cannot be read or does not match the schema goes back to the model (as the SUBMIT call's
   * error result, or as a note) and the loop goes on.
   */
  #resolveFinal(
    call: RunningCall,
    final: PendingFinal,
    response: GenerateResult,
    outputs: readonly string[],
    submitCall: ToolCall | undefined,
    toolResults: readonly ToolResultPart[],
  ): void {
    this.#kernel.spawn(call.id, async () => {
      const reading = await this.#readAnswer(call, final);
      if ('answer' in reading) return this.#finalize(call, reading.answer, final.source);
      return {
        type: 'AnswerRejected',
        callId: call.id,
        problem: reading.problem,
        response,
        outputs,
        toolResults: submitCall
          ? [...toolResults, toolError(submitCall, reading.problem)]
          : toolResults,
        asNote: !submitCall,
      };
    });
  }

  #extractAnswered(call: RunningCall, response: GenerateResult): void {
    if (response.text.trim().length > 0) call.lastText = response.text;
    const final = extractFinal(response, this.#settings.codeLanguages);
    const facts = { iterations: call.iteration, depth: call.depth, lastText: call.lastText };
    if (!final) throw noFinalAnswer(facts, 'the forced final prompt gave no answer');
    this.#kernel.spawn(call.id, async () => {
      const reading = await this.#readAnswer(call, final);
      if ('problem' in reading) throw noFinalAnswer(facts, reading.problem);
      return this.#finalize(call, reading.answer, 'extract');
    });
  }

  #readAnswer(call: RunningCall, final: PendingFinal) {
    return readFinalAnswer(
      final,
      async (name) => {
        await this.#features.beforeSandboxUse(call);
        return call.workspace.variables.read(name);
      },
      this.#settings.outputSchema,
    );
  }

  /** The Finalize command of an accepted answer, with the copy a feature stored, if any. */
  async #finalize(
    call: CallState,
    answer: unknown,
    source: Extract<Command, { type: 'Finalize' }>['source'],
  ): Promise<Command> {
    const artifact = await this.#features.onFinal(call, answer);
    return { type: 'Finalize', callId: call.id, answer, source, ...(artifact ? { artifact } : {}) };
  }
}
