import type { ArtifactCatalogEntry } from '../../artifact-store.js';

const maxNameChars = 120;
const maxTypeChars = 40;
const maxDescriptionChars = 200;
const maxPurposeChars = 120;

/**
 * The prompt's "Available artifacts" section: one line per record, newest first (by
 * `timestamp`, then by position in `entries`, later first), each name
 * quoted as the `"@name"` string a tool input uses. Never longer than `maxChars` characters:
 * records that do not fit are counted in a last line. `''` when there are no records (or not
 * even the heading fits), so the caller can leave the section out.
 */
export function renderArtifactCatalog(
  entries: readonly ArtifactCatalogEntry[],
  maxChars: number,
): string {
  if (entries.length === 0) return '';
  const heading = `Available artifacts (${entries.length}); pass "@name" as a tool input to use its value:`;
  if (heading.length > maxChars) return '';
  const lines = [heading];
  let length = heading.length;
  // Newest first by timestamp; records made in the same millisecond, the later-made first.
  const newestFirst = entries
    .map((entry, position) => ({ entry, position }))
    .sort((a, b) => b.entry.timestamp - a.entry.timestamp || b.position - a.position)
    .map(({ entry }) => entry);
  for (const [shown, entry] of newestFirst.entries()) {
    const line = formatLine(entry);
    const hidden = newestFirst.length - shown - 1;
    const footer = hidden > 0 ? 1 + omitted(hidden).length : 0;
    if (length + 1 + line.length + footer > maxChars) {
      const rest = omitted(newestFirst.length - shown);
      if (length + 1 + rest.length <= maxChars) lines.push(rest);
      return lines.join('\n');
    }
    lines.push(line);
    length += 1 + line.length;
  }
  return lines.join('\n');
}

function formatLine(entry: ArtifactCatalogEntry): string {
  const name = JSON.stringify(`@${cut(entry.name, maxNameChars)}`);
  const description = cut(oneLine(entry.description), maxDescriptionChars);
  const purpose = oneLine(entry.purpose);
  const why =
    purpose && purpose !== oneLine(entry.description)
      ? ` Purpose: ${cut(purpose, maxPurposeChars)}`
      : '';
  return `- ${name} (${cut(oneLine(entry.type), maxTypeChars)}): ${description}${why} [${shape(entry)}, ${formatBytes(entry.size)}]`;
}

function shape(entry: ArtifactCatalogEntry): string {
  const count = entry.valueLength?.toLocaleString('en-US');
  switch (entry.valueKind) {
    case 'string':
      return `string of ${count} chars`;
    case 'array':
      return `array of ${count} items`;
    case 'object':
      return `object with ${count} keys`;
    default:
      return entry.valueKind;
  }
}

function omitted(count: number): string {
  return `(${count} older artifact${count === 1 ? '' : 's'} not shown)`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
