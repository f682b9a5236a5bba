/** What a session moved out of memory: data the prompt writes up. */
export interface SessionEvictions {
  readonly overflow: 'drop' | 'spill';
  /** Indices `n` of the `context_<n>` no longer in memory, ascending. */
  readonly contexts: readonly number[];
  /** How many of the oldest queries' `history` entries are no longer in `history`. */
  readonly histories: number;
}

/** What a bounded session moved out of memory, and how model code gets it back. */
export function describeEvictions(evicted: SessionEvictions, histories: number): string {
  const spilled = evicted.overflow === 'spill';
  const parts: string[] = [];
  if (evicted.contexts.length > 0) {
    const names = nameRanges('context_', evicted.contexts);
    const one = evicted.contexts.length === 1;
    parts.push(
      spilled
        ? `${names} ${one ? 'is' : 'are'} no longer in memory: \`await load("context_N")\` gets one back`
        : `${names} ${one ? 'was' : 'were'} dropped and ${one ? 'is' : 'are'} gone`,
    );
  }
  if (evicted.histories > 0) {
    const kept = histories - evicted.histories;
    const older =
      evicted.histories === 1 ? 'history_0' : `history_0..history_${evicted.histories - 1}`;
    const one = evicted.histories === 1;
    const earlier = `\`history\` holds the last ${queries(kept)} before this one; the ${evicted.histories} earlier ${one ? 'one' : 'ones'}`;
    parts.push(
      spilled
        ? `${earlier} ${one ? 'is' : 'are'} stored as ${older} (\`await load("history_N")\`)`
        : `${earlier} ${one ? 'was' : 'were'} dropped`,
    );
  }
  return `session memory is bounded: ${parts.join('; ')}`;
}

function queries(count: number): string {
  return count === 1 ? '1 query' : `${count} queries`;
}

/** `context_0..context_4, context_7` from ascending indices. */
function nameRanges(prefix: string, indices: readonly number[]): string {
  const ranges: string[] = [];
  let start = indices[0]!;
  let end = start;
  for (const index of [...indices.slice(1), Number.NaN]) {
    if (index === end + 1) {
      end = index;
      continue;
    }
    ranges.push(start === end ? `${prefix}${start}` : `${prefix}${start}..${prefix}${end}`);
    start = index;
    end = index;
  }
  return ranges.join(', ');
}
