import { boundHistory } from '../bound-history.js';
import type { Message, ToolDefinition } from '../language-model.js';
import { buildSystemPrompt, type ModelMenu } from '../prompts.js';
import type { ModelRequest } from './model-gateway.js';

/** What a step's request is made of. */
export interface RequestParts {
  /** The user's own system prompt; replaces the built-in one (sections are still added). */
  readonly systemPrompt: string | undefined;
  /** Whether `sub_rlm` starts a full child at this call's depth. */
  readonly recursion: boolean;
  /** The fence language model code must use. */
  readonly codeLanguage: string;
  /** The installed features' lines for the REPL list. */
  readonly replHelp: readonly string[];
  /** What model code may choose with `{ model }`; `undefined` when it cannot. */
  readonly models: ModelMenu | undefined;
  /** The installed features' prompt sections, in order; empty ones already left out. */
  readonly sections: readonly string[];
  /** The SUBMIT tool when it is offered. */
  readonly submitTool: ToolDefinition | undefined;
  /** The call's whole conversation. */
  readonly messages: readonly Message[];
  /** Characters of history the request may carry (see `boundHistory`). */
  readonly historyBudgetChars: number;
}

/**
 * PURE: a step's model request: the system prompt (built-in or the user's) followed by the
 * features' sections, the history bounded by its budget, and the SUBMIT tool when offered.
 */
export function buildRequest(parts: RequestParts): ModelRequest {
  const system =
    parts.systemPrompt ??
    buildSystemPrompt({
      submitTool: parts.submitTool !== undefined,
      recursion: parts.recursion,
      codeLanguage: parts.codeLanguage,
      replHelp: parts.replHelp,
      models: parts.models,
    });
  return {
    system: [system, ...parts.sections].join('\n\n'),
    messages: boundHistory(parts.messages, parts.historyBudgetChars),
    ...(parts.submitTool ? { tools: [parts.submitTool], toolChoice: 'auto' as const } : {}),
  };
}
