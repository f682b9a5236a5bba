/** A fenced code block found in a model response. */
export interface CodeBlock {
  /** The fence's language tag, lower-cased (`repl`, `js`, ...). */
  readonly language: string;
  readonly code: string;
  /**
   * False when the block had no closing fence and ran to the end of the response: in a
   * response cut by the output limit, it is unfinished.
   */
  readonly closed: boolean;
}

/** A model response split into runnable code and the prose around it. */
export interface ParsedResponse {
  /** Blocks whose language is runnable, in order. */
  readonly codeBlocks: readonly CodeBlock[];
  /** The response with every fenced block (of any language) removed. */
  readonly prose: string;
}

const fenceOpen = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*$/;

/**
 * Splits a response into fenced blocks and prose. Only blocks whose language is in
 * `runnableLanguages` are returned as code; every fenced block is removed from the prose, so
 * `FINAL(...)` inside any code fence is never taken as an answer. An unclosed fence runs to the
 * end of the response.
 */
export function parseResponse(text: string, runnableLanguages: readonly string[]): ParsedResponse {
  const runnable = new Set(runnableLanguages.map((language) => language.toLowerCase()));
  const lines = text.split('\n');
  const codeBlocks: CodeBlock[] = [];
  const prose: string[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    const open = fenceOpen.exec(line);
    if (!open) {
      prose.push(line);
      index += 1;
      continue;
    }
    const fence = open[1]!;
    const language = open[2]!.toLowerCase();
    const body: string[] = [];
    index += 1;
    while (index < lines.length && !isClosingFence(lines[index]!, fence)) {
      body.push(lines[index]!);
      index += 1;
    }
    const closed = index < lines.length;
    index += 1;
    if (runnable.has(language)) codeBlocks.push({ language, code: body.join('\n'), closed });
  }
  return { codeBlocks, prose: prose.join('\n') };
}

function isClosingFence(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return (
    trimmed.length >= fence.length &&
    trimmed[0] === fence[0] &&
    /^(`+|~+)$/.test(trimmed) &&
    line.length - line.trimStart().length <= 3
  );
}
