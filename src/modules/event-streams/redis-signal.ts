// The change signal over Redis pub/sub: one subscriber connection per process.
import type { Redis } from 'ioredis'

import type { ChangeSignal } from './change-signal.js'
import { coalesced } from './change-signal.js'

const COALESCE_MS = 20

export async function redisSignal(redis: Redis, channel: string, onError: (error: unknown) => void): Promise<ChangeSignal> {
  const subscriber = redis.duplicate({ lazyConnect: true })
  subscriber.on('error', onError)
  await subscriber.connect()
  await subscriber.subscribe(channel)
  const listeners: (() => void)[] = []
  subscriber.on('message', (from: string) => {
    if (from === channel) for (const listener of listeners) listener()
  })
  return {
    notify: coalesced(() => void redis.publish(channel, '1').catch(onError), COALESCE_MS),
    onSignal: (listener) => void listeners.push(listener),
    async close() {
      subscriber.disconnect()
    },
  }
}
