/**
 * The trace viewer's browser code. It is inlined into the HTML with `Function.prototype
 * .toString`, so it must stay self-contained: no imports, no references to anything outside
 * its own body. Every model-made string reaches the page through `textContent` or text nodes,
 * never as markup.
 */
export function runTraceViewer(expand: (call: never) => unknown): void {
  type Usage = {
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    modelCalls: number;
    costUsd?: number;
  };
  type Final = { at: number; source: string; answerExcerpt: string; artifactId?: string };
  type Warning = { at: number; code: string; message: string };
  type Block = {
    index: number;
    code: string;
    startedAt: number;
    output?: string;
    error?: string;
    shownToModel?: string;
    durationMs?: number;
  };
  type Part =
    | { type: 'text'; text: string }
    | { type: 'tool-call'; call: { id: string; name: string; input: unknown } }
    | { type: 'tool-result'; toolCallId: string; content: string; isError?: boolean };
  type Message = { role: string; content: string | Part[] };
  type ModelCall = {
    at: number;
    durationMs: number;
    modelId: string;
    system?: string;
    keptMessages?: number;
    messages: Message[];
    response: {
      text: string;
      toolCalls: { id: string; name: string; input: unknown }[];
      stopReason: string;
    };
  };
  type Retries = { count: number; waitMs: number; lastAttemptAt: number };
  type Request = { system: string; messages: Message[] };
  type HostCall = {
    requestId: string;
    name: string;
    startedAt: number;
    argumentsExcerpt?: string;
    ok?: boolean;
    durationMs?: number;
    resultExcerpt?: string;
    error?: string;
    childCallId?: string;
    usage: Usage;
    modelCalls?: ModelCall[];
    retries?: Retries;
  };
  type Step = {
    iteration: number;
    startedAt: number;
    respondedAt?: number;
    endedAt?: number;
    text?: string;
    blocks: Block[];
    hostCalls: HostCall[];
    usage: Usage;
    modelCall?: ModelCall;
    retries?: Retries;
    warnings: Warning[];
    checkpoint?: { at: number; checkpointId: string; durationMs: number };
    final?: Final;
  };
  type Call = {
    callId: string;
    parentCallId?: string;
    parentRequestId?: string;
    depth: number;
    query: string;
    startedAt: number;
    endedAt?: number;
    status: string;
    steps: Step[];
    childCallIds: string[];
    warnings: Warning[];
    usage: Usage;
    extract?: ModelCall;
    final?: Final;
    error?: { name: string; message: string };
    resumed?: { iteration: number; restored: string[]; lost: string[] };
  };
  type Trace = {
    runId: string;
    query: string;
    startedAt: number;
    endedAt?: number;
    status: string;
    rootCallId?: string;
    calls: Call[];
    usage: Usage;
    steps: number;
    depthReached: number;
    final?: Final;
    error?: { name: string; message: string };
  };

  const viewerStartedAt = performance.now();
  const dataElement = document.getElementById('rlm-trace-data');
  const trace = JSON.parse(dataElement?.textContent ?? '{}') as Trace;
  const parsedAt = performance.now();
  const calls: Record<string, Call> = {};
  for (const call of trace.calls ?? []) calls[call.callId] = call;
  const modelHostCalls = new Set(['llm_query', 'llm_query_batched', 'sub_rlm']);

  // ---------- small helpers ----------
  const element = (tag: string, className?: string, text?: string): HTMLElement => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const seconds = (ms: number | undefined): string => {
    if (ms === undefined || !Number.isFinite(ms)) return '–';
    return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  };
  const tokens = (usage: Usage | undefined): string => {
    if (!usage) return '0 tok';
    const total =
      usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    const cache =
      usage.cacheReadTokens > 0 ? ` (${usage.cacheReadTokens.toLocaleString()} cached)` : '';
    return `${total.toLocaleString()} tok${cache}`;
  };
  const cost = (usage: Usage | undefined): string =>
    usage?.costUsd === undefined ? 'cost unknown' : `$${usage.costUsd.toFixed(4)}`;
  /** `1 step`, `2 steps`. */
  const count = (n: number, one: string, many = `${one}s`): string =>
    `${n.toLocaleString()} ${n === 1 ? one : many}`;
  const oneLine = (text: string, max: number): string => {
    const flat = text.replace(/\s+/g, ' ').trim();
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  };
  /** Union length of [start, end) intervals, in ms. */
  const unionMs = (intervals: [number, number][]): number => {
    const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
    let total = 0;
    let end = Number.NEGATIVE_INFINITY;
    for (const [a, b] of sorted) {
      if (b <= end) continue;
      total += b - Math.max(a, end);
      end = b;
    }
    return total;
  };
  /**
   * Where a step's time went: retries (failed attempts and the waits after them), then the
   * model's answer, then the code: running in the sandbox, or waiting on sub-calls (the union of
   * its model host calls, within the step).
   */
  const stepTimes = (step: Step) => {
    const responded = Math.max(
      step.startedAt,
      step.respondedAt ?? step.modelCall?.at ?? step.endedAt ?? step.startedAt,
    );
    const end = Math.max(responded, step.endedAt ?? responded);
    const attemptAt = Math.min(
      responded,
      Math.max(
        step.startedAt,
        step.retries?.lastAttemptAt ?? step.startedAt + (step.retries?.waitMs ?? 0),
      ),
    );
    const waits = step.hostCalls
      .filter((hostCall) => modelHostCalls.has(hostCall.name))
      .map((hostCall): [number, number] => [
        Math.max(responded, hostCall.startedAt),
        Math.min(end, hostCall.startedAt + (hostCall.durationMs ?? end - hostCall.startedAt)),
      ]);
    const waiting = unionMs(waits);
    return {
      retry: attemptAt - step.startedAt,
      model: responded - attemptAt,
      sandbox: Math.max(0, end - responded - waiting),
      waiting,
      attemptAt,
      responded,
      end,
      waits,
    };
  };

  // ---------- a small JavaScript highlighter ----------
  const keywords = new Set(
    'await async break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new of return static super switch this throw try typeof var void while yield'.split(
      ' ',
    ),
  );
  const literals = new Set(['true', 'false', 'null', 'undefined', 'NaN', 'Infinity']);
  const tokenPattern =
    /(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|`(?:[^`\\]|\\[\s\S])*`?)|(\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?n?\b|\b0x[\da-f]+\b)|([A-Za-z_$][\w$]*)/gi;
  const highlight = (code: string): DocumentFragment => {
    const fragment = document.createDocumentFragment();
    let last = 0;
    tokenPattern.lastIndex = 0;
    for (let match = tokenPattern.exec(code); match !== null; match = tokenPattern.exec(code)) {
      if (match.index > last) fragment.append(code.slice(last, match.index));
      const [text, comment, string, number, word] = match;
      let kind = '';
      if (comment) kind = 'tok-comment';
      else if (string) kind = 'tok-string';
      else if (number) kind = 'tok-number';
      else if (word) {
        if (keywords.has(word)) kind = 'tok-keyword';
        else if (literals.has(word)) kind = 'tok-literal';
        else if (code[match.index + word.length] === '(') kind = 'tok-call';
      }
      fragment.append(kind ? element('span', kind, text) : text);
      last = match.index + text.length;
    }
    if (last < code.length) fragment.append(code.slice(last));
    return fragment;
  };

  // ---------- lazily built, collapsible nodes ----------
  const builders = new WeakMap<Element, () => void>();
  const ensureBuilt = (details: Element): void => {
    const build = builders.get(details);
    if (build) {
      builders.delete(details);
      build();
    }
  };
  const collapsible = (
    className: string,
    summary: (node: HTMLElement) => void,
    build: (body: HTMLElement) => void,
  ): HTMLDetailsElement => {
    const details = document.createElement('details');
    details.className = className;
    const head = document.createElement('summary');
    summary(head);
    const body = element('div', 'body');
    details.append(head, body);
    builders.set(details, () => build(body));
    details.addEventListener('toggle', () => {
      if (details.open) ensureBuilt(details);
    });
    return details;
  };
  const callElements = new Map<string, HTMLDetailsElement>();
  const stepElements = new Map<string, HTMLDetailsElement>();
  const hostElements = new Map<string, HTMLDetailsElement>();
  const stepKey = (callId: string, position: number) => `${callId}#${position}`;
  /** Steps are rendered a page at a time; each call's function renders its next page. */
  const stepPageSize = 100;
  const moreSteps = new Map<string, () => boolean>();
  const hostKey = (callId: string, requestId: string) => `${callId}#${requestId}`;

  const textBlock = (label: string, className: string, text: string, field: string) => {
    const wrap = element('div', 'field');
    wrap.append(element('div', 'label', label));
    const pre = element('pre', className, text);
    pre.dataset.field = field;
    wrap.append(pre);
    return wrap;
  };

  // ---------- what the model was asked, and what it answered ----------
  const expanded = new Map<string, { steps: (Request | undefined)[]; extract?: Request }>();
  /** The whole requests of a call's steps, rebuilt from their differences once. */
  const requestsOf = (call: Call) => {
    let found = expanded.get(call.callId);
    if (!found) {
      found = expand(call as never) as { steps: (Request | undefined)[]; extract?: Request };
      expanded.set(call.callId, found);
    }
    return found;
  };
  const partText = (part: Part): string =>
    part.type === 'text'
      ? part.text
      : part.type === 'tool-call'
        ? `${part.call.name} ${JSON.stringify(part.call.input, null, 2)}`
        : part.content;
  const renderMessages = (messages: Message[], firstNew: number): HTMLElement => {
    const list = element('div', 'messages');
    messages.forEach((message, index) => {
      const parts: Part[] =
        typeof message.content === 'string'
          ? [{ type: 'text', text: message.content }]
          : message.content;
      for (const part of parts) {
        const kind =
          part.type === 'tool-call'
            ? ' · tool call'
            : part.type === 'tool-result'
              ? ` · tool result${part.isError ? ' (error)' : ''}`
              : '';
        list.append(
          textBlock(
            `message ${index + 1} · ${message.role}${kind}${index >= firstNew ? ' · new' : ''}`,
            `plain message role-${message.role}`,
            partText(part),
            'message',
          ),
        );
      }
    });
    return list;
  };
  /** A request, built when opened: its system prompt and its messages, the new ones marked. */
  const renderRequest = (label: string, request: () => Request | undefined, firstNew: number) =>
    collapsible(
      'request',
      (head) => head.append(element('span', 'label', label)),
      (body) => {
        const whole = request();
        if (!whole) return;
        body.append(
          textBlock(
            `system prompt · ${count(whole.system.length, 'character')}`,
            'plain system',
            whole.system,
            'system',
          ),
          renderMessages(whole.messages, firstNew),
        );
      },
    );
  const chars = (messages: Message[]) =>
    messages.reduce(
      (sum, message) =>
        sum +
        (typeof message.content === 'string'
          ? message.content.length
          : message.content.reduce((inner, part) => inner + partText(part).length, 0)),
      0,
    );
  /** What a model call answered: its text and its tool calls, whole. */
  const renderResponse = (modelCall: ModelCall, label: string, withText: boolean) => {
    const fragment = document.createDocumentFragment();
    if (withText && modelCall.response.text !== '') {
      fragment.append(textBlock(label, 'plain output', modelCall.response.text, 'response'));
    }
    for (const toolCall of modelCall.response.toolCalls) {
      fragment.append(
        textBlock(
          `tool call ${toolCall.name}`,
          'plain',
          JSON.stringify(toolCall.input, null, 2) ?? '',
          'toolCall',
        ),
      );
    }
    return fragment;
  };
  /** A host call's model call: the whole prompt and the whole answer. */
  const renderServedCall = (modelCall: ModelCall, body: HTMLElement) => {
    body.append(
      renderRequest(
        `system prompt · ${count((modelCall.system ?? '').length, 'character')}`,
        () => ({ system: modelCall.system ?? '', messages: [] }),
        0,
      ),
      renderMessages(modelCall.messages, modelCall.messages.length),
      renderResponse(
        modelCall,
        `answer · ${count(modelCall.response.text.length, 'character')} · ${seconds(modelCall.durationMs)}`,
        true,
      ),
    );
  };

  const renderCall = (call: Call): HTMLDetailsElement => {
    const details = collapsible(
      `call depth-${Math.min(call.depth, 5)} status-${call.status}`,
      (head) => {
        head.append(
          element('span', 'badge', call.depth === 0 ? 'root' : `sub_rlm · depth ${call.depth}`),
          element('span', 'query', oneLine(call.query, 160)),
          element(
            'span',
            'meta',
            `${count(call.steps.length, 'step')} · ${seconds((call.endedAt ?? call.startedAt) - call.startedAt)} · ${tokens(call.usage)} · ${cost(call.usage)} · ${call.status}`,
          ),
        );
      },
      (body) => {
        body.append(textBlock('query', 'plain', call.query, 'query'));
        if (call.resumed) {
          const lost = call.resumed.lost.length ? `; lost: ${call.resumed.lost.join(', ')}` : '';
          body.append(
            element(
              'div',
              'note resumed',
              `resumed after step ${call.resumed.iteration} (restored: ${call.resumed.restored.join(', ') || 'none'}${lost})`,
            ),
          );
        }
        const stepList = element('div', 'steps');
        body.append(stepList);
        let shown = 0;
        const more = element('button', 'more');
        const showMore = (): boolean => {
          if (shown >= call.steps.length) return false;
          const end = Math.min(call.steps.length, shown + stepPageSize);
          const fragment = document.createDocumentFragment();
          for (let position = shown; position < end; position++) {
            fragment.append(renderStep(call, call.steps[position]!, position));
          }
          stepList.append(fragment);
          shown = end;
          const rest = call.steps.length - shown;
          if (rest > 0) {
            more.textContent = `show steps ${shown + 1}–${Math.min(call.steps.length, shown + stepPageSize)} (${rest} more)`;
            stepList.append(more);
          } else more.remove();
          return true;
        };
        more.addEventListener('click', () => showMore());
        moreSteps.set(call.callId, showMore);
        showMore();
        for (const warning of call.warnings) body.append(renderWarning(warning));
        if (call.extract) {
          const extract = call.extract;
          body.append(
            renderRequest(
              `the forced final prompt: the system prompt and ${count((extract.keptMessages ?? 0) + extract.messages.length, 'message')}`,
              () => requestsOf(call).extract,
              extract.keptMessages ?? 0,
            ),
            renderResponse(extract, 'its answer', true),
          );
        }
        const linked = new Set(
          call.steps.flatMap((step) => step.hostCalls.map((hostCall) => hostCall.childCallId)),
        );
        for (const childId of call.childCallIds) {
          const child = calls[childId];
          if (child && !linked.has(childId)) body.append(renderCall(child));
        }
        if (call.final && !call.steps.some((step) => step.final))
          body.append(renderFinal(call.final));
        if (call.error) {
          body.append(
            textBlock('error', 'error', `${call.error.name}: ${call.error.message}`, 'error'),
          );
        }
      },
    );
    details.dataset.callId = call.callId;
    details.dataset.depth = String(call.depth);
    callElements.set(call.callId, details);
    return details;
  };

  const renderStep = (call: Call, step: Step, position: number): HTMLDetailsElement => {
    const times = stepTimes(step);
    const details = collapsible(
      `step${step.blocks.some((block) => block.error) ? ' has-error' : ''}`,
      (head) => {
        const hostCounts = new Map<string, number>();
        for (const hostCall of step.hostCalls) {
          hostCounts.set(hostCall.name, (hostCounts.get(hostCall.name) ?? 0) + 1);
        }
        const hosts = [...hostCounts].map(([name, times]) => `${times}× ${name}`).join(', ');
        const retries = step.retries
          ? ` · retries ${seconds(times.retry)} (${count(step.retries.count, 'retry', 'retries')})`
          : '';
        head.append(
          element('span', 'badge step-badge', `step ${step.iteration}`),
          element(
            'span',
            'meta',
            `model ${seconds(times.model)}${retries} · sandbox ${seconds(times.sandbox)} · waiting ${seconds(times.waiting)} · ${count(step.blocks.length, 'block')}${hosts ? ` · ${hosts}` : ''} · ${tokens(step.usage)}${step.final ? ` · ${step.final.source}` : ''}`,
          ),
        );
        if (step.warnings.length) head.append(element('span', 'warn-flag', '⚠'));
      },
      (body) => {
        const modelCall = step.modelCall;
        if (modelCall) {
          const total = (modelCall.keptMessages ?? 0) + modelCall.messages.length;
          body.append(
            renderRequest(
              `what the model was asked: the system prompt and ${count(total, 'message')} (${modelCall.messages.length} new, ${count(chars(modelCall.messages), 'character')})`,
              () => requestsOf(call).steps[position],
              modelCall.keptMessages ?? 0,
            ),
          );
        }
        if (step.retries) {
          body.append(
            element(
              'div',
              'note warning',
              `⟳ ${count(step.retries.count, 'retry', 'retries')} before the answer: ${seconds(times.retry)} of failed attempts and waits (${seconds(step.retries.waitMs)} waiting), then ${seconds(times.model)} for the answer`,
            ),
          );
        }
        if (step.text !== undefined) {
          body.append(textBlock('model text', 'plain model-text', step.text, 'text'));
        }
        if (modelCall) body.append(renderResponse(modelCall, 'model text', false));
        for (const block of step.blocks) {
          const wrap = element('div', 'block');
          wrap.append(
            element('div', 'label', `code block ${block.index} · ${seconds(block.durationMs)}`),
          );
          const pre = element('pre', 'code');
          pre.dataset.field = 'code';
          pre.append(highlight(block.code));
          wrap.append(pre);
          if (block.output !== undefined) {
            wrap.append(textBlock('output', 'plain output', block.output, 'output'));
          }
          if (block.error !== undefined) {
            wrap.append(textBlock('error', 'error', block.error, 'error'));
          }
          if (block.shownToModel !== undefined) {
            wrap.append(
              textBlock('shown to the model', 'plain output', block.shownToModel, 'shownToModel'),
            );
          }
          body.append(wrap);
        }
        for (const hostCall of step.hostCalls) body.append(renderHostCall(call, hostCall));
        for (const warning of step.warnings) body.append(renderWarning(warning));
        if (step.checkpoint) {
          body.append(
            element(
              'div',
              'note',
              `checkpoint ${step.checkpoint.checkpointId} saved in ${seconds(step.checkpoint.durationMs)}`,
            ),
          );
        }
        if (step.final) body.append(renderFinal(step.final));
      },
    );
    stepElements.set(stepKey(call.callId, position), details);
    return details;
  };

  const renderHostCall = (call: Call, hostCall: HostCall): HTMLDetailsElement => {
    const state = hostCall.ok === undefined ? 'pending' : hostCall.ok ? 'ok' : 'failed';
    const details = collapsible(
      `host host-${state}`,
      (head) => {
        head.append(
          element('span', `badge host-name`, hostCall.name),
          element('span', 'query', oneLine(hostCall.argumentsExcerpt ?? '', 120)),
          element(
            'span',
            'meta',
            `${seconds(hostCall.durationMs)} · ${state}${hostCall.usage.modelCalls ? ` · ${count(hostCall.usage.modelCalls, 'model call')} · ${tokens(hostCall.usage)} · ${cost(hostCall.usage)}` : ''}${hostCall.retries ? ` · ${count(hostCall.retries.count, 'retry', 'retries')} (${seconds(hostCall.retries.waitMs)} waiting)` : ''}`,
          ),
        );
      },
      (body) => {
        const served = hostCall.modelCalls ?? [];
        if (hostCall.argumentsExcerpt !== undefined) {
          body.append(textBlock('arguments', 'plain', hostCall.argumentsExcerpt, 'arguments'));
        }
        if (hostCall.resultExcerpt !== undefined) {
          body.append(textBlock('result', 'plain output', hostCall.resultExcerpt, 'result'));
        }
        // The whole prompts and answers of the model calls that served it, on demand.
        served.forEach((modelCall, index) => {
          body.append(
            collapsible(
              'served',
              (head) =>
                head.append(
                  element(
                    'span',
                    'label',
                    `${served.length > 1 ? `model call ${index + 1} of ${served.length}` : 'model call'}: the whole prompt (${count(chars(modelCall.messages), 'character')}) and answer (${count(modelCall.response.text.length, 'character')}) · ${seconds(modelCall.durationMs)}`,
                  ),
                ),
              (inner) => renderServedCall(modelCall, inner),
            ),
          );
        });
        if (hostCall.error !== undefined) {
          body.append(textBlock('error', 'error', hostCall.error, 'error'));
        }
        const child = hostCall.childCallId ? calls[hostCall.childCallId] : undefined;
        if (child) body.append(renderCall(child));
      },
    );
    hostElements.set(hostKey(call.callId, hostCall.requestId), details);
    return details;
  };

  const renderWarning = (warning: Warning) =>
    element('div', 'note warning', `⚠ ${warning.code}: ${warning.message}`);
  const renderFinal = (final: Final) =>
    textBlock(`answer (${final.source})`, 'plain answer', final.answerExcerpt, 'answer');

  /** Opens every node on the way to a call, its step and optionally one host call. */
  const reveal = (callId: string, position?: number, requestId?: string): void => {
    const call = calls[callId];
    if (!call) return;
    if (call.parentCallId && call.parentRequestId) {
      const parent = calls[call.parentCallId];
      const at = parent?.steps.findIndex((step) =>
        step.hostCalls.some((hostCall) => hostCall.requestId === call.parentRequestId),
      );
      if (parent && at !== undefined && at >= 0) reveal(parent.callId, at, call.parentRequestId);
    } else if (call.parentCallId) reveal(call.parentCallId);
    const node = callElements.get(callId);
    if (!node) return;
    node.open = true;
    ensureBuilt(node);
    if (position === undefined) return;
    while (!stepElements.has(stepKey(callId, position)) && moreSteps.get(callId)?.()) {
      // Render pages until the step exists.
    }
    const step = stepElements.get(stepKey(callId, position));
    if (!step) return;
    step.open = true;
    ensureBuilt(step);
    if (requestId === undefined) return;
    const host = hostElements.get(hostKey(callId, requestId));
    if (!host) return;
    host.open = true;
    ensureBuilt(host);
  };

  // ---------- page ----------
  const app = document.getElementById('app');
  if (!app) return;
  const header = element('header');
  const title = element('h1', undefined, 'rlm trace');
  const runLine = element('div', 'run-line');
  runLine.append(
    element('span', `badge status-${trace.status}`, trace.status),
    element('span', 'query', oneLine(trace.query ?? '', 300)),
  );
  const totals = element(
    'div',
    'totals',
    `run ${trace.runId} · ${new Date(trace.startedAt).toISOString()} · ${seconds((trace.endedAt ?? trace.startedAt) - trace.startedAt)} · ${count(trace.steps ?? 0, 'step')} · ${count((trace.calls ?? []).length, 'call')} · depth ${trace.depthReached} · ${tokens(trace.usage)} · ${count(trace.usage?.modelCalls ?? 0, 'model call')} · ${cost(trace.usage)}`,
  );
  const searchRow = element('div', 'search-row');
  const search = document.createElement('input');
  search.type = 'search';
  search.id = 'search';
  search.placeholder = 'Search text, code, outputs, prompts, answers…';
  const searchStatus = element('span', 'search-status');
  searchStatus.id = 'search-status';
  const expandAll = element('button', undefined, 'expand all');
  const collapseAll = element('button', undefined, 'collapse all');
  searchRow.append(search, searchStatus, expandAll, collapseAll);
  header.append(title, runLine, totals, searchRow);
  app.append(header);

  // The outcome first: the answer, or the error the run ended with.
  const outcome = element('section', 'outcome');
  outcome.id = 'outcome';
  if (trace.final) {
    outcome.append(
      textBlock(
        `answer (${trace.final.source})`,
        'plain answer',
        trace.final.answerExcerpt,
        'answer',
      ),
    );
  } else if (trace.error) {
    outcome.append(
      textBlock('the run failed', 'error', `${trace.error.name}: ${trace.error.message}`, 'error'),
    );
  } else {
    outcome.append(
      element('div', 'note', 'no answer: the run was still going when its trace was kept'),
    );
  }
  app.append(outcome);

  // Timeline: one row per call, one segment per phase of each step.
  const timeline = element('section', 'timeline');
  timeline.append(element('h2', undefined, 'Where the time went'));
  const legend = element('div', 'legend');
  for (const [kind, label] of [
    ['model', 'model'],
    ['retry', 'model retries'],
    ['sandbox', 'sandbox'],
    ['waiting', 'waiting on sub-calls'],
  ]) {
    const item = element('span', 'legend-item');
    item.append(element('span', `swatch seg-${kind}`), label ?? '');
    legend.append(item);
  }
  timeline.append(legend);
  const runStart = trace.startedAt;
  const runEnd = Math.max(
    trace.endedAt ?? runStart,
    ...(trace.calls ?? []).map((call) => call.endedAt ?? call.startedAt),
  );
  const span = Math.max(1, runEnd - runStart);
  const percent = (time: number) => `${(((time - runStart) / span) * 100).toFixed(3)}%`;
  const width = (from: number, to: number) =>
    `${Math.max(0.05, ((to - from) / span) * 100).toFixed(3)}%`;
  const orderedCalls: Call[] = [];
  const visit = (call: Call | undefined) => {
    if (!call || orderedCalls.includes(call)) return;
    orderedCalls.push(call);
    for (const childId of call.childCallIds) visit(calls[childId]);
  };
  visit(trace.rootCallId ? calls[trace.rootCallId] : undefined);
  for (const call of trace.calls ?? []) visit(call);
  const rows = element('div', 'rows');
  for (const call of orderedCalls.slice(0, 300)) {
    const row = element('div', 'row');
    let model = 0;
    let retry = 0;
    let sandbox = 0;
    let waiting = 0;
    const bar = element('div', 'bar');
    // The run's time is cut into `buckets` slices; each slice takes the colour of the phase
    // that used most of it, and neighbours of one colour merge into one segment.
    const buckets = 400;
    const bucketOf = (time: number) =>
      Math.min(buckets - 1, Math.max(0, Math.floor(((time - runStart) / span) * buckets)));
    const slices: { time: Record<string, number>; position: number }[] = [];
    const addTime = (kind: string, from: number, to: number, position: number) => {
      if (!(to > from)) return;
      for (let index = bucketOf(from); index <= bucketOf(to); index++) {
        const start = runStart + (index * span) / buckets;
        const stop = runStart + ((index + 1) * span) / buckets;
        const overlap = Math.min(to, stop) - Math.max(from, start);
        if (overlap <= 0) continue;
        const slice = slices[index] ?? { time: {}, position };
        slices[index] = slice;
        slice.time[kind] = (slice.time[kind] ?? 0) + overlap;
      }
    };
    call.steps.forEach((step, position) => {
      const times = stepTimes(step);
      model += times.model;
      retry += times.retry;
      sandbox += times.sandbox;
      waiting += times.waiting;
      addTime('retry', step.startedAt, times.attemptAt, position);
      addTime('model', times.attemptAt, times.responded, position);
      // After the answer: waiting on sub-calls where they ran, the sandbox in between.
      let at = times.responded;
      for (const [from, to] of times.waits.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0])) {
        addTime('sandbox', at, from, position);
        addTime('waiting', Math.max(at, from), to, position);
        at = Math.max(at, to);
      }
      addTime('sandbox', at, times.end, position);
    });
    let open: { kind: string; first: number; last: number; position: number } | undefined;
    const flush = () => {
      if (!open) return;
      const segment = element('span', `seg seg-${open.kind}`);
      const from = runStart + (open.first * span) / buckets;
      const to = runStart + ((open.last + 1) * span) / buckets;
      segment.style.left = percent(from);
      segment.style.width = width(from, to);
      segment.title = `${open.kind} from step ${call.steps[open.position]?.iteration ?? '?'}`;
      const position = open.position;
      segment.addEventListener('click', () => {
        reveal(call.callId, position);
        stepElements.get(stepKey(call.callId, position))?.scrollIntoView({ block: 'center' });
      });
      bar.append(segment);
      open = undefined;
    };
    slices.forEach((slice, index) => {
      if (!slice) return;
      const kind = Object.entries(slice.time).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'sandbox';
      if (open && open.kind === kind && open.last === index - 1) open.last = index;
      else {
        flush();
        open = { kind, first: index, last: index, position: slice.position };
      }
    });
    flush();
    const label = element(
      'div',
      'row-label',
      `${'  '.repeat(call.depth)}${call.depth === 0 ? 'root' : `depth ${call.depth}`}: ${oneLine(call.query, 40)}`,
    );
    label.title = call.query;
    row.append(
      label,
      bar,
      element(
        'div',
        'row-meta',
        `model ${seconds(model)}${retry > 0 ? ` · retries ${seconds(retry)}` : ''} · sandbox ${seconds(sandbox)} · waiting ${seconds(waiting)}`,
      ),
    );
    rows.append(row);
  }
  if (orderedCalls.length > 300) {
    rows.append(
      element(
        'div',
        'note',
        `${count(orderedCalls.length - 300, 'more call', 'more calls')} not drawn`,
      ),
    );
  }
  timeline.append(rows);
  app.append(timeline);

  const treeSection = element('section', 'tree');
  treeSection.append(element('h2', undefined, 'Call tree'));
  const root = trace.rootCallId ? calls[trace.rootCallId] : undefined;
  if (root) {
    const rootNode = renderCall(root);
    treeSection.append(rootNode);
    rootNode.open = true;
    ensureBuilt(rootNode);
  } else treeSection.append(element('div', 'note', 'The run recorded no call.'));
  app.append(treeSection);

  expandAll.addEventListener('click', () => {
    for (const call of orderedCalls) {
      call.steps.forEach((step, position) => {
        reveal(call.callId, position);
        for (const hostCall of step.hostCalls) reveal(call.callId, position, hostCall.requestId);
      });
    }
  });
  collapseAll.addEventListener('click', () => {
    for (const node of document.querySelectorAll('details[open]')) {
      (node as HTMLDetailsElement).open = false;
    }
  });

  // ---------- search ----------
  type Hit = { callId: string; position?: number; requestId?: string; field: string };
  const collectHits = (needle: string): Hit[] => {
    const hits: Hit[] = [];
    const has = (text: string | undefined) => text?.toLowerCase().includes(needle) === true;
    for (const call of orderedCalls) {
      if (has(call.query)) hits.push({ callId: call.callId, field: 'query' });
      if (has(call.error?.message)) hits.push({ callId: call.callId, field: 'error' });
      call.steps.forEach((step, position) => {
        const at = { callId: call.callId, position };
        if (has(step.text)) hits.push({ ...at, field: 'text' });
        for (const block of step.blocks) {
          if (has(block.code)) hits.push({ ...at, field: 'code' });
          if (has(block.output)) hits.push({ ...at, field: 'output' });
          if (has(block.error)) hits.push({ ...at, field: 'error' });
          if (has(block.shownToModel)) hits.push({ ...at, field: 'shownToModel' });
        }
        if (has(step.final?.answerExcerpt)) hits.push({ ...at, field: 'answer' });
        for (const hostCall of step.hostCalls) {
          const host = { ...at, requestId: hostCall.requestId };
          if (has(hostCall.argumentsExcerpt)) hits.push({ ...host, field: 'arguments' });
          if (has(hostCall.resultExcerpt)) hits.push({ ...host, field: 'result' });
          if (has(hostCall.error)) hits.push({ ...host, field: 'error' });
        }
      });
    }
    return hits;
  };
  const clearMarks = () => {
    for (const mark of document.querySelectorAll('mark.hit')) {
      mark.replaceWith(document.createTextNode(mark.textContent ?? ''));
    }
    for (const node of document.querySelectorAll('.match')) node.classList.remove('match');
    for (const pre of document.querySelectorAll('pre.plain')) pre.normalize();
  };
  const markText = (pre: Element, needle: string): number => {
    if (pre.classList.contains('code')) {
      if (!(pre.textContent ?? '').toLowerCase().includes(needle)) return 0;
      pre.classList.add('match');
      return 1;
    }
    const text = pre.textContent ?? '';
    const lower = text.toLowerCase();
    let from = 0;
    let count = 0;
    const fragment = document.createDocumentFragment();
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, from)) {
      fragment.append(
        text.slice(from, at),
        element('mark', 'hit', text.slice(at, at + needle.length)),
      );
      from = at + needle.length;
      count++;
    }
    if (count === 0) return 0;
    fragment.append(text.slice(from));
    pre.replaceChildren(fragment);
    pre.classList.add('match');
    return count;
  };
  const runSearch = () => {
    clearMarks();
    const needle = search.value.trim().toLowerCase();
    if (needle.length < 2) {
      searchStatus.textContent = '';
      return;
    }
    const hits = collectHits(needle);
    const shown = hits.slice(0, 200);
    const containers = new Set<Element>();
    for (const hit of shown) {
      reveal(hit.callId, hit.position, hit.requestId);
      const container =
        hit.requestId !== undefined
          ? hostElements.get(hostKey(hit.callId, hit.requestId))
          : hit.position !== undefined
            ? stepElements.get(stepKey(hit.callId, hit.position))
            : callElements.get(hit.callId);
      if (container) containers.add(container);
    }
    let marks = 0;
    for (const container of containers) {
      const body = container.querySelector(':scope > .body');
      for (const pre of body?.querySelectorAll(':scope > .field > pre, :scope > .block pre') ??
        []) {
        marks += markText(pre, needle);
      }
    }
    searchStatus.textContent =
      hits.length === 0
        ? 'no match'
        : `${hits.length} match${hits.length === 1 ? '' : 'es'}${hits.length > shown.length ? ` (first ${shown.length} opened)` : ''}`;
    document.querySelector('.match')?.scrollIntoView({ block: 'center' });
    document.body.dataset.marks = String(marks);
  };
  let pending: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    clearTimeout(pending);
    pending = setTimeout(runSearch, 150);
  });
  search.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      clearTimeout(pending);
      runSearch();
    }
  });
  // For tests and benchmarks: milliseconds spent decoding the data and building the page.
  document.body.dataset.parseMs = (parsedAt - viewerStartedAt).toFixed(1);
  document.body.dataset.renderMs = (performance.now() - viewerStartedAt).toFixed(1);
  document.body.dataset.ready = 'true';
}
