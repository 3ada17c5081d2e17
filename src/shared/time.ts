/** Database timestamps arrive as Date (PostgreSQL) or ISO text (SQLite); the API speaks ISO-8601 UTC. */
export function toIsoString(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString()
}

export function nowIso(): string {
  return new Date().toISOString()
}

/** SQLite stores flags as 0/1, PostgreSQL as booleans; both accept 0/1 on write. */
export function flag(value: boolean): 0 | 1 {
  return value ? 1 : 0
}
