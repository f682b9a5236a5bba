import { coreVersion } from '../../core-version.js';
import type { DurableToolStore } from '../../durable-tool-store.js';
import { DurableToolSession, toolGuestHelper, toolPromptVersion } from './durable-tool-session.js';
import { renderKnownTools } from './render-known-tools.js';
import type { Feature } from '../feature.js';

/** The host functions the durable tools feature adds (model code's, then the helper's own). */
export const durableToolsFeatureNames: readonly string[] = [
  'tool',
  'delegate',
  '__tool_plan',
  '__tool_report',
];

/**
 * Durable tools (seed 004): `delegate(role, contract)` declares a tool, the `tool(role)` guest
 * helper calls its methods; the helper alone holds `__tool_plan` (the code to run: persisted,
 * repaired or written by the main model) and `__tool_report` (the outcome). The prompt gains the
 * store's ranked known-tools block, read once per run.
 */
export function durableToolsFeature(
  store: DurableToolStore,
  options: { readonly modelId: string },
): Feature {
  const session = new DurableToolSession(store, {
    runtime: { runtimeVersion: coreVersion, promptVersion: toolPromptVersion },
    modelId: options.modelId,
  });
  let knownTools: Promise<string> | undefined;
  return {
    name: 'durable tools',
    hostFunctions: { delegate: ({ request }) => session.declare(request.args) },
    internalHostFunctions: {
      __tool_plan: ({ call, request, generate, emit }) =>
        session.plan(request.args, generate, call.id, emit),
      __tool_report: ({ call, request, emit }) => session.report(request.args, call.id, emit),
    },
    guestHelpers: { tool: toolGuestHelper },
    replHelp: [
      '- `await delegate(role, { purpose, deliverable, acceptance, failurePolicy })`: declare',
      '  a reusable tool; `await tool(role).method(...args)` calls one of its methods. A',
      '  method without code is written for you against the contract the first time, kept',
      '  once it works, and reused by later runs (see known_tools below). Methods see only',
      '  their arguments, the built-ins and llm_query: pass them the data they need.',
    ],
    promptSection() {
      knownTools ??= store
        .knownTools()
        .then(renderKnownTools)
        .catch(() => '');
      return knownTools;
    },
  };
}
