// The event-streams slice's settings (docs/configuration.md, Realtime).
import type { Env } from '../../shared/settings.js'
import { integer } from '../../shared/settings.js'

export interface EventStreamSettings {
  /** EVENT_STREAM_HEARTBEAT_SECONDS. */
  heartbeatSeconds: number
  /** EVENT_STREAMS_PER_USER: open streams a user may hold. */
  perUser: number
  /** EVENT_STREAMS_PER_ADDRESS: open streams a client address may hold. */
  perAddress: number
}

export function eventStreamSettings(env: Env): EventStreamSettings {
  return {
    heartbeatSeconds: integer(env, 'EVENT_STREAM_HEARTBEAT_SECONDS', 15, 1, 300),
    perUser: integer(env, 'EVENT_STREAMS_PER_USER', 5, 1, 1000),
    perAddress: integer(env, 'EVENT_STREAMS_PER_ADDRESS', 20, 1, 100_000),
  }
}
