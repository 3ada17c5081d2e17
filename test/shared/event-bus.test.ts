// Domain events are reactions after a commit: a subscriber's failure is reported, never thrown
// into the publisher (whose change is done), and the other subscribers still run.
import { describe, expect, it } from 'vitest'

import { DomainError } from '../../src/shared/errors.js'
import { EventBus } from '../../src/shared/event-bus.js'

describe('the event bus', () => {
  it('reports a failing subscriber instead of throwing it into the publisher, and runs the others', async () => {
    const reported: unknown[] = []
    const bus = new EventBus<{ happened: { n: number } }>((error) => reported.push(error))
    const heard: number[] = []
    bus.subscribe('happened', () => Promise.reject(new DomainError('conflict', 'a veto', { code: 'last_sign_in_method' })))
    bus.subscribe('happened', async ({ n }) => {
      heard.push(n)
    })
    await expect(bus.publish('happened', { n: 1 })).resolves.toBeUndefined()
    expect(heard).toEqual([1])
    expect(reported).toHaveLength(1)
    expect(reported[0]).toBeInstanceOf(DomainError)
  })
})
