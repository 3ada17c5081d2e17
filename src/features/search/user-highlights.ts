// A user hit's highlights: the users search matches a case-insensitive substring of the name or
// username, and each place it matched is marked, the rest escaped.
import { escapeHtml } from '../../shared/escape-html.js'

/** `text` as HTML with every case-insensitive occurrence of `needle` in <mark>. */
export function markedSubstring(text: string, needle: string): string {
  const wanted = needle.toLowerCase()
  const lower = text.toLowerCase()
  // Lower-casing changes the length of a few characters (İ): then nothing is marked rather than the wrong letters.
  if (wanted === '' || lower.length !== text.length) return escapeHtml(text)
  let html = ''
  let from = 0
  for (let at = lower.indexOf(wanted); at !== -1; at = lower.indexOf(wanted, at + wanted.length)) {
    html += `${escapeHtml(text.slice(from, at))}<mark>${escapeHtml(text.slice(at, at + wanted.length))}</mark>`
    from = at + wanted.length
  }
  return html + escapeHtml(text.slice(from))
}
