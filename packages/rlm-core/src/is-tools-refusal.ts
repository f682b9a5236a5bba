/** How providers and servers word a refusal of tools (not a malformed tool message). */
const toolsRefusal =
  /(does not|doesn't|do not) support (tools|tool calling|tool use|function calling)|\btools? (use |calling )?(is |are )?not supported|function calling is not supported|tool choice requires|tools param requires/i;

/**
 * Whether a provider's error message says that the model or server cannot take tools at all:
 * Ollama (`<model> does not support tools`), vLLM (`"auto" tool choice requires
 * --enable-auto-tool-choice ...`), llama.cpp (`tools param requires --jinja flag`), and the
 * usual wordings elsewhere. A complaint about one tool message (a missing result, a bad name)
 * is not a refusal: that is the adapter's bug, and the loop must not hide it by dropping tools.
 * Adapters use it to classify an error `tools-unsupported`.
 */
export function isToolsRefusal(message: string): boolean {
  return toolsRefusal.test(message);
}
