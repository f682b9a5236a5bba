/** `url` with its password, if any, replaced by `***`, for messages. */
export function redactPassword(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}
