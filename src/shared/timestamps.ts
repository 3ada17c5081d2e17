/**
 * Database timestamps arrive as Date (PostgreSQL) or as ISO-8601 UTC text (SQLite, where we
 * write them that way and the column defaults do too); the API speaks ISO-8601 UTC.
 */
export function toIsoString(value: Date | string): string {
  return typeof value === 'string' ? value : value.toISOString()
}

export function nowIso(): string {
  return new Date().toISOString()
}
