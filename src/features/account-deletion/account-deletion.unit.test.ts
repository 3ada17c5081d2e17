// The deletion schedule on fakes of its collaborators, with no server and a clock the test holds:
// when an account is due, what its removal does with its posts, and how a removal that fails is
// held back and tried again. The HTTP contract (both databases, the mails, the cancel page) is
// account-deletion.v2.test.ts's; a unit test: it runs once.
import { describe, expect, it } from 'vitest'

import type { Unit } from '../../db/unit-of-work.js'
import type { Logger } from '../../logger.js'
import { DomainError } from '../../shared/errors.js'
import type { AuthService, TokenCaller } from '../auth/index.js'
import type { MailService } from '../mail/index.js'
import type { OneTimeSecrets } from '../one-time-secrets/index.js'
import type { PostService } from '../posts/index.js'
import type { SecurityEventService } from '../security-events/index.js'
import type { UserService } from '../users/index.js'
import { AccountDeletionService } from './account-deletion.service.js'
import type { AccountDeletionSettings } from './settings.js'

const MINUTE = 60_000
const START = Date.parse('2026-12-01T00:00:00Z')
const DELETED_AUTHOR = 999
const client = { ip: '203.0.113.7', userAgent: null }
const unit = {} as Unit

/** What the service asked of its collaborators, in order. */
function fakes(content: AccountDeletionSettings['content'], options: { failing?: Set<number>; due?: number[] } = {}) {
  const calls: string[] = []
  const warnings: number[] = []
  let due = options.due ?? []
  const users = {
    scheduleDeletion: async (id: number, dueAt: string, inUnit: (unit: Unit, user: object) => Promise<void>) => {
      calls.push(`schedule ${id} ${dueAt}`)
      await inUnit(unit, { id, name: 'Ada', email: 'ada@example.com', locale: 'en' })
    },
    cancelScheduledDeletion: async (id: number, inUnit: (unit: Unit) => Promise<void>) => {
      if (!due.includes(id)) return false
      await inUnit(unit)
      due = due.filter((other) => other !== id)
      return true
    },
    dueDeletions: async (_now: string, limit: number, skip: readonly number[]) => due.filter((id) => !skip.includes(id)).slice(0, limit),
    deletedAuthorId: async () => DELETED_AUTHOR,
    purgeScheduled: async (id: number, _now: string, beforeRemoving: (unit: Unit, deletedAt: string | null) => Promise<void>) => {
      if (options.failing?.has(id)) throw new Error('last owner')
      await beforeRemoving(unit, '2026-11-17T00:00:00.000Z')
      due = due.filter((other) => other !== id)
      calls.push(`removed ${id}`)
    },
  }
  const posts = {
    restoreHiddenWith: async (_unit: Unit, id: number) => void calls.push(`restore posts of ${id}`),
    handOverPublishedOf: async (_unit: Unit, id: number, to: number) => void calls.push(`hand ${id}'s published posts to ${to}`),
  }
  const auth = {
    revokeSessionsOf: async (id: number) => (calls.push(`end sessions of ${id}`), 1),
    provePassword: async (login: string) => ({ id: 1, deletionDueAt: login === 'pending' ? '2026-12-15T00:00:00.000Z' : null }),
  }
  const secrets = { kind: () => ({ issue: async () => ({ token: 'cancel-token' }), spend: async () => undefined, retire: async () => undefined }) }
  const clock = { now: START }
  const service = new AccountDeletionService({
    users: users as unknown as UserService,
    auth: auth as unknown as AuthService,
    posts: posts as unknown as PostService,
    events: { record: async (type: string) => void calls.push(type) } as unknown as SecurityEventService,
    mail: { queue: async (_unit: Unit, message: { template: string }) => void calls.push(`mail ${message.template}`) } as unknown as MailService,
    secrets: secrets as unknown as OneTimeSecrets,
    settings: { graceDays: 14, content, cancelUrl: undefined, publicUrl: 'http://localhost:8000' },
    logger: { warn: (fields: { userId: number }) => void warnings.push(fields.userId) } as unknown as Logger,
    assertRemovable: async (_unit, id) => void calls.push(`may remove ${id}`),
    comments: { handOverOf: async (_unit, id, to) => void calls.push(`hand ${id}'s comments to ${to}`) },
    now: () => clock.now,
  })
  return { service, calls, warnings, clock, isDue: (id: number) => due.includes(id) }
}

const caller = { user: { id: 1 } } as TokenCaller
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'done', (error: unknown) => (error instanceof DomainError ? error.code : String(error)))

describe('the deletion schedule', () => {
  it('makes an account due after the grace period, refused first if it cannot go, mailed, and signed out everywhere', async () => {
    const { service, calls } = fakes('delete')
    expect(await service.request(caller, client)).toEqual({ deletionDueAt: '2026-12-15T00:00:00.000Z' })
    expect(calls).toEqual(['schedule 1 2026-12-15T00:00:00.000Z', 'may remove 1', 'account_deletion_requested', 'mail account-deletion-scheduled', 'end sessions of 1'])
  })

  it('takes back only a pending deletion, and answers a right password of an account with none as a wrong one', async () => {
    const { service, isDue } = fakes('delete', { due: [1] })
    expect(await codeOf(service.cancel({ login: 'not-pending', password: 'right' }, client))).toBe('invalid_credentials')
    expect(await codeOf(service.cancel({ login: 'pending', password: 'right' }, client))).toBe('done')
    expect(isDue(1)).toBe(false)
    expect(await codeOf(service.cancel({ login: 'pending', password: 'right' }, client))).toBe('deletion_not_pending')
  })

  it('removes the posts with the account, or hands the published ones to the "Deleted user" (ACCOUNT_DELETION_CONTENT=anonymize)', async () => {
    const deleting = fakes('delete', { due: [1] })
    await deleting.service.purgeDue()
    expect(deleting.calls).toEqual(['removed 1'])
    const anonymizing = fakes('anonymize', { due: [1] })
    await anonymizing.service.purgeDue()
    expect(anonymizing.calls).toEqual(['restore posts of 1', `hand 1's published posts to ${DELETED_AUTHOR}`, `hand 1's comments to ${DELETED_AUTHOR}`, 'removed 1'])
  })

  it('holds back a removal that failed, a minute and then twice as long each time, logging each try once, while the others go', async () => {
    const failing = new Set([1])
    const { service, calls, warnings, clock, isDue } = fakes('delete', { due: [1, 2], failing })
    await service.purgeDue(clock.now)
    expect(calls).toEqual(['removed 2'])
    expect(warnings).toEqual([1])
    await service.purgeDue(clock.now + MINUTE - 1)
    expect(warnings).toEqual([1])
    await service.purgeDue(clock.now + MINUTE)
    expect(warnings).toEqual([1, 1])
    await service.purgeDue(clock.now + MINUTE + 2 * MINUTE - 1)
    expect(warnings).toEqual([1, 1])
    failing.clear()
    await service.purgeDue(clock.now + 3 * MINUTE)
    expect(isDue(1)).toBe(false)
    expect(calls).toEqual(['removed 2', 'removed 1'])
  })
})
