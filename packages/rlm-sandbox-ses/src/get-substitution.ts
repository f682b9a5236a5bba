/**
 * ECMA-262's GetSubstitution: expands `$$`, `$&`, `` $` ``, `$'`, `$n`, `$nn` and `$<name>` in
 * a replacement template for one match. `captures` are the match's groups 1..n (`undefined`
 * for those that did not participate); `groups` is the match's `groups` object, if any.
 */
export function getSubstitution(
  matched: string,
  text: string,
  position: number,
  captures: readonly (string | undefined)[],
  groups: Readonly<Record<string, unknown>> | undefined,
  template: string,
): string {
  let result = '';
  let index = 0;
  const length = template.length;
  while (index < length) {
    const dollar = template.indexOf('$', index);
    if (dollar < 0 || dollar + 1 >= length) {
      result += template.slice(index);
      break;
    }
    result += template.slice(index, dollar);
    const next = template.charCodeAt(dollar + 1);
    if (next === 0x24 /* $ */) {
      result += '$';
      index = dollar + 2;
    } else if (next === 0x26 /* & */) {
      result += matched;
      index = dollar + 2;
    } else if (next === 0x60 /* ` */) {
      result += text.slice(0, position);
      index = dollar + 2;
    } else if (next === 0x27 /* ' */) {
      result += text.slice(Math.min(position + matched.length, text.length));
      index = dollar + 2;
    } else if (next >= 0x30 && next <= 0x39) {
      const second = template.charCodeAt(dollar + 2);
      let digits = second >= 0x30 && second <= 0x39 ? 2 : 1;
      let reference = digits === 2 ? (next - 0x30) * 10 + (second - 0x30) : next - 0x30;
      if (digits === 2 && reference > captures.length) {
        digits = 1;
        reference = next - 0x30;
      }
      if (reference >= 1 && reference <= captures.length) {
        result += captures[reference - 1] ?? '';
      } else {
        result += template.slice(dollar, dollar + 1 + digits);
      }
      index = dollar + 1 + digits;
    } else if (next === 0x3c /* < */) {
      const close = template.indexOf('>', dollar + 2);
      if (close < 0 || groups === undefined) {
        result += '$<';
        index = dollar + 2;
      } else {
        const capture = groups[template.slice(dollar + 2, close)];
        if (capture !== undefined) result += `${capture}`;
        index = close + 1;
      }
    } else {
      result += '$';
      index = dollar + 1;
    }
  }
  return result;
}
