/**
 * A LIKE pattern matching `text` anywhere, lower-cased, with the wildcards % and _ (and the
 * escape character itself) escaped so user input matches literally. Use with ESCAPE '\'.
 */
export function likeContains(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`
}
