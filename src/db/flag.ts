/** SQLite stores flags as 0/1, PostgreSQL as booleans; both accept 0/1 on write. */
export function flag(value: boolean): 0 | 1 {
  return value ? 1 : 0
}
