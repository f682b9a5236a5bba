import type { AnyNode } from 'acorn';

/** Node types whose bodies run later, in a scope of their own. */
export const functionTypes: ReadonlySet<string> = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
]);

/** The nodes directly under `node`, in source order of its fields. */
export function childNodes(node: AnyNode): AnyNode[] {
  const found: AnyNode[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' || key === 'start' || key === 'end' || key === 'loc') continue;
    if (Array.isArray(value)) {
      for (const item of value) {
        if (item && typeof item === 'object' && typeof item.type === 'string') found.push(item);
      }
    } else if (value && typeof value === 'object' && typeof (value as AnyNode).type === 'string') {
      found.push(value as AnyNode);
    }
  }
  return found;
}
