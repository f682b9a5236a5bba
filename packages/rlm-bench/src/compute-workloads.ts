/** Code one compute workload runs; the same text in every environment compared. */
export interface ComputeWorkload {
  readonly name: string;
  readonly code: string;
  /** The most time allowed against plain Node, where it is not the usual 1.5x. */
  readonly target?: { readonly maxRatio: number; readonly text: string };
}

/**
 * Run once per environment after `context` is set, untimed: the persisted variables the
 * workloads use (`words` is defined here and looped over in a later run).
 */
export const computeSetupCode = "let result; let total = 0; const words = context.split(' ');";

/** Regex-heavy, loop-heavy and persisted-variable workloads over a string `context`. */
export const computeWorkloads: readonly ComputeWorkload[] = [
  { name: 'split(/\\s+/)', code: 'result = context.split(/\\s+/).length;' },
  { name: 'split(/\\n/)', code: 'result = context.split(/\\n/).length;' },
  {
    name: 'word frequency (split(/\\s+/) + Map count)',
    code: '{ const counts = new Map(); for (const word of context.split(/\\s+/)) counts.set(word, (counts.get(word) ?? 0) + 1); result = counts.size; }',
    // Issue 31: at most the Python RLM's time, which was 4.1 s where plain Node took 6.2 s.
    target: { maxRatio: 0.66, text: '<= 0.66x' },
  },
  { name: 'word count (match(/\\w+/g))', code: 'result = context.match(/\\w+/g).length;' },
  {
    name: 'match(/\\d{4}-\\d{2}-\\d{2}/g)',
    code: 'result = context.match(/\\d{4}-\\d{2}-\\d{2}/g).length;',
  },
  { name: "replace(/\\s+/g, ' ')", code: "result = context.replace(/\\s+/g, ' ').length;" },
  {
    name: "split('\\n').filter(regex test)",
    code: "result = context.split('\\n').filter((line) => /risk|audit/.test(line)).length;",
  },
  {
    name: 'charCodeAt scan',
    code: '{ let lines = 0; for (let i = 0; i < context.length; i++) { if (context.charCodeAt(i) === 10) lines++; } result = lines; }',
  },
  {
    name: 'loop over a persisted array',
    code: 'total = 0; for (let i = 0; i < words.length; i++) { total += words[i].length; } result = total;',
  },
];
