// PostgreSQL sends a timestamptz as text ("2026-11-23 04:00:00.123456+00" in a UTC session), and
// pg turns it into a Date that the API then turns back into ISO-8601 text, twice for every row of
// every list: this parser makes the ISO text at once. Rows then carry text, as they do on SQLite
// (column-types.ts).
import pg from 'pg'

const TIMESTAMPTZ_OID = 1184
const parseTimestamptzAsDate = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number

/**
 * ISO-8601 UTC with milliseconds, as Date#toISOString writes it (fractions beyond milliseconds
 * are cut off, as a Date would). Anything but a four-digit year in a UTC session takes pg's own
 * parser: other zones, BC, infinity.
 */
export function timestamptzToIso(text: string): string {
  // "YYYY-MM-DD HH:MM:SS[.f{1,6}]+00"
  if (text.length >= 22 && text.charCodeAt(4) === 45 && text.charCodeAt(10) === 32 && text.endsWith('+00')) {
    const fraction = text.length > 22 && text.charCodeAt(19) === 46 ? text.slice(20, -3) : ''
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${(fraction + '000').slice(0, 3)}Z`
  }
  const parsed = parseTimestamptzAsDate(text)
  return parsed instanceof Date ? parsed.toISOString() : text
}

/** pg's type parsers, with timestamptz read as ISO text. For a pool's `types` option. */
export const postgresTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ_OID && format !== 'binary') return timestamptzToIso
    return pg.types.getTypeParser(oid, format)
  },
}
