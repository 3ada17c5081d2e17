// The change signal over Redis pub/sub: one subscriber connection per process. Redis may be away
// when the service starts or later: the subscriber reconnects and subscribes again on its own,
// a signal that cannot be published is dropped (streams read on their timer meanwhile), and an
// outage is logged once, not at every attempt.
import type { Redis } from 'ioredis'

import { coalesced } from '../../shared/coalesced.js'
import type { ChangeSignal } from './change-signal.js'

const COALESCE_MS = 20

export function redisSignal(redis: Redis, channel: string, onOutage: (error: unknown) => void): Promise<ChangeSignal> {
  let away = false
  const outage = (error: unknown) => {
    if (away) return
    away = true
    onOutage(error)
  }
  const subscriber = redis.duplicate({ lazyConnect: true, enableOfflineQueue: true, maxRetriesPerRequest: null })
  subscriber.on('error', outage)
  subscriber.on('ready', () => (away = false))
  const listeners: (() => void)[] = []
  subscriber.on('message', (from: string) => {
    if (from === channel) for (const listener of listeners) listener()
  })
  // Queued until connected; ioredis subscribes again after each reconnection.
  subscriber.connect().catch(outage)
  subscriber.subscribe(channel).catch(outage)
  return Promise.resolve({
    notify: coalesced(() => void redis.publish(channel, '1').catch(outage), COALESCE_MS),
    onSignal: (listener) => void listeners.push(listener),
    async close() {
      subscriber.disconnect()
    },
  })
}
