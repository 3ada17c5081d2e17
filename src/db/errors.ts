// Classifies driver errors of either dialect, so repositories and the error handler do not
// need to know which database is underneath.

interface DriverError {
  code?: unknown
  constraint?: unknown
  message?: unknown
}

function asDriverError(error: unknown): DriverError {
  return typeof error === 'object' && error !== null ? (error as DriverError) : {}
}

/**
 * For a unique-constraint violation, returns text naming the constraint or column
 * (e.g. "users_email_key" or "users.username"); undefined for any other error.
 */
export function uniqueViolation(error: unknown): string | undefined {
  const { code, constraint, message } = asDriverError(error)
  if (code === '23505') return typeof constraint === 'string' ? constraint : String(message)
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return String(message)
  return undefined
}

const UNAVAILABLE_CODES = new Set([
  // Network level (pg)
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  // PostgreSQL: connection exceptions and operator intervention
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // SQLite: file locked, read-only, unreadable, full
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_FULL',
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT',
])

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended unexpectedly',
  'database connection is not open',
  'The database connection is not open',
]

/** True when the error means the database cannot be reached or written right now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = asDriverError(error)
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code)) return true
    if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_BUSY')) {
      return true
    }
  }
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable)
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((text) => message.includes(text))
}

/**
 * True for PostgreSQL's refusal of text it cannot store (a NUL byte, an untranslatable
 * character). Validation refuses such text first; this is the second line of defence.
 */
export function isInvalidText(error: unknown): boolean {
  const { code } = asDriverError(error)
  return code === '22021' || code === '22P05'
}
