// A cursor that carries values as JSON: opaque to clients (a letter naming its kind, then
// base64url), and read back only exactly as it was written. A sorted page's and a search's
// cursors are these.
import { RuleViolation } from './errors.js'

export const INVALID_CURSOR = 'Invalid cursor'

/** 422 on `cursor`: what every cursor this service did not write answers. */
export const invalidCursor = () => new RuleViolation('cursor', INVALID_CURSOR, 'cursor', { location: 'query' })

export function encodeJsonCursor(prefix: string, values: unknown[]): string {
  return prefix + Buffer.from(JSON.stringify(values)).toString('base64url')
}

/** The values a cursor of this kind carries; 422 for anything else. */
export function decodeJsonCursor(prefix: string, cursor: string): unknown[] {
  if (!cursor.startsWith(prefix)) throw invalidCursor()
  const text = Buffer.from(cursor.slice(prefix.length), 'base64url').toString()
  // Only the cursor as written: base64url decoding forgives stray characters, this does not.
  if (prefix + Buffer.from(text).toString('base64url') !== cursor) throw invalidCursor()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw invalidCursor()
  }
  if (!Array.isArray(parsed)) throw invalidCursor()
  return parsed as unknown[]
}
