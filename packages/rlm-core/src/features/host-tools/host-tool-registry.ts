import type { ArtifactStore } from '../../artifact-store.js';
import { measurePlainData } from '../../bridge/measure-plain-data.js';
import type { ArtifactQuota } from '../artifacts/artifact-quota.js';
import { reservedNames } from '../reserved-names.js';
import type { HostTool, ToolOutput } from './host-tool.js';
import { formatIssues, SchemaCheck } from '../../schema-check.js';

/** The host tools of a run, validated once at `createRLM`. */
export class HostToolRegistry {
  readonly #tools = new Map<string, { tool: HostTool; input: SchemaCheck }>();

  constructor(tools: readonly HostTool[]) {
    for (const tool of tools) {
      if (!/^[A-Za-z_$][\w$]*$/.test(tool.name) || reservedNames.has(tool.name)) {
        throw new TypeError(
          `@rlm/core: tool name ${JSON.stringify(tool.name)} must be a JavaScript identifier and not one of ${[...reservedNames].join(', ')}`,
        );
      }
      if (/^context_\d+$/.test(tool.name) || this.#tools.has(tool.name)) {
        throw new TypeError(`@rlm/core: tool name ${JSON.stringify(tool.name)} is taken`);
      }
      this.#tools.set(tool.name, {
        tool,
        input: new SchemaCheck(tool.inputSchema, `tool ${tool.name}: inputSchema`),
      });
    }
  }

  /** Tool names, in registration order. */
  get names(): string[] {
    return [...this.#tools.keys()];
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The prompt's description of the tools: signature, description and input schema each. */
  describe(): string {
    return [...this.#tools.values()]
      .map(
        ({ tool, input }) =>
          `- \`await ${tool.name}(input, { outputs? })\`: ${tool.description}\n  input schema: ${JSON.stringify(input.schema)}`,
      )
      .join('\n');
  }

  /**
   * Runs one tool call from model code: resolves `"@name"` references in the input, validates
   * it, executes the tool, and stores each requested output as a named artifact record (counted
   * against `quota`). Rejects with a message written for the model.
   */
  async call(
    name: string,
    args: readonly unknown[],
    artifacts: ArtifactStore | undefined,
    signal: AbortSignal,
    quota: ArtifactQuota,
  ): Promise<unknown> {
    const entry = this.#tools.get(name);
    if (!entry) throw new Error(`unknown tool ${name}`);
    const [rawInput, options] = args;
    // Measured before any walk: "@name" resolution and the schema check visit every place.
    const measured = measurePlainData(rawInput);
    if (!measured.ok)
      throw new Error(`${name}: input must be plain JSON data: ${measured.problem}`);
    const outputs = readOutputs(name, options);
    if (outputs.length > 0 && !artifacts) {
      throw new Error(`${name}: outputs need an artifact store (createRLM({ artifacts }))`);
    }
    const input = artifacts ? await artifacts.resolveReferences(rawInput) : rawInput;
    const verdict = await entry.input.check(input);
    if (!verdict.ok) throw new Error(`${name}: invalid input:\n${formatIssues(verdict.issues)}`);
    const result = await entry.tool.execute(verdict.value, { signal });
    for (const output of outputs) {
      const value =
        outputs.length > 1 && isRecord(result) && output.name in result
          ? result[output.name]
          : result;
      const reserved = quota.reserve(value, `${name}(input, { outputs })`);
      try {
        await artifacts!.put(output.name, {
          type: output.type ?? 'data',
          value,
          description: output.description ?? `output of ${name}`,
          ...(output.purpose ? { purpose: output.purpose } : {}),
          metadata: { tool: name, inputReferences: references(rawInput) },
        });
      } catch (error) {
        quota.cancel(reserved);
        throw error;
      }
    }
    return result;
  }
}

function readOutputs(name: string, options: unknown): ToolOutput[] {
  if (options === undefined) return [];
  const outputs = isRecord(options) ? options.outputs : undefined;
  if (outputs === undefined) return [];
  if (
    !Array.isArray(outputs) ||
    !outputs.every((output) => isRecord(output) && typeof output.name === 'string' && output.name)
  ) {
    throw new Error(`${name}: outputs must be an array of { name, type?, description?, purpose? }`);
  }
  return outputs as ToolOutput[];
}

/** The `"@name"` references an input holds, for the output record's metadata. */
function references(input: unknown): string[] {
  if (typeof input === 'string') {
    return input.startsWith('@') && !input.startsWith('@@') && input.length > 1
      ? [input.slice(1)]
      : [];
  }
  if (Array.isArray(input)) return input.flatMap(references);
  if (isRecord(input)) return Object.values(input).flatMap(references);
  return [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
