// The service's logger (pino, JSON lines on stdout). Fastify itself runs without one: with a
// logger configured it tracks every response for its request logs and binds a child logger to
// every request, a large share of a simple read's cost even with info logs off (docs/performance.md).
// Our code logs through this logger instead, naming the request id where it matters, and the
// access log (one line per request) exists only when info is enabled.
import type { Logger } from 'pino'
import { pino } from 'pino'

import type { LogLevel } from './config.js'

export type { Logger }

export function createLogger(level: LogLevel): Logger {
  return pino({ level })
}
