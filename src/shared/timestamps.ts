/**
 * Database timestamps arrive as ISO-8601 UTC text from both databases (SQLite, where we write
 * them that way and the column defaults do too; PostgreSQL through src/db/fast-path/pg-timestamps.ts).
 * With FAST_PATH=off, PostgreSQL's driver returns a Date, which this turns into the same text;
 * the API speaks ISO-8601 UTC.
 */
export function toIsoString(value: Date | string): string {
  return typeof value === 'string' ? value : value.toISOString()
}

export function nowIso(): string {
  return new Date().toISOString()
}
