// Account deletion with a grace period: the owner deletes their account (with a fresh session);
// it is soft-deleted at once (hidden, with its posts; every session ends) and removed for good
// ACCOUNT_DELETION_GRACE_DAYS later, unless taken back in between, by the mailed link or by
// signing in, which then offers only that. The purge job removes it for good once due, once across
// processes, with its posts (ACCOUNT_DELETION_CONTENT=delete) or moving them to a "Deleted user"
// author (anonymize); `user.removed` goes out as for a superuser's permanent delete. The v1 soft
// delete is untouched.
import type { Logger } from 'pino'

import type { Unit } from '../../db/unit-of-work.js'
import { DomainError, invalidToken } from '../../shared/errors.js'
import { mailedLink } from '../../shared/mailed-link.js'
import type { AuthService, TokenCaller } from '../auth/index.js'
import { invalidCredentials } from '../auth/index.js'
import type { MailService } from '../mail/index.js'
import { duration } from '../mail/index.js'
import type { OneTimeSecrets, SecretKind } from '../one-time-secrets/index.js'
import type { PostService } from '../posts/index.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { UserService } from '../users/index.js'
import type { AccountDeletionSettings } from './settings.js'

const DAY_MS = 86_400_000
const PURGE_BATCH = 20
/** How often due deletions are looked for (a deletion is due to the day; this is minutes at most late). */
export const DELETION_PURGE_INTERVAL_MS = 60_000
/** A removal that failed is tried again this much later, doubling with each failure up to HELD_BACK_MAX_MS. */
const HELD_BACK_FIRST_MS = 60_000
const HELD_BACK_MAX_MS = 6 * 3_600_000

const NOT_PENDING = 'No deletion of this account is pending'

/** Refuses, in the unit, an account that cannot be removed for good (the last owner of an organization: 409 last_owner). */
export type RemovalCheck = (unit: Unit, userId: number) => Promise<void>

/** How a deletion is taken back: the mailed link's token, or the account's login and password. */
export type CancelProof = { token: string } | { login: string; password: string }

/** What AccountDeletionService is built from. */
export interface AccountDeletionServiceDependencies {
  users: UserService
  auth: AuthService
  posts: PostService
  events: SecurityEventService
  mail: MailService
  secrets: OneTimeSecrets
  settings: AccountDeletionSettings & { publicUrl: string }
  logger: Logger
  assertRemovable: RemovalCheck
  /** The comments slice's part in an anonymized removal: the account's comments stay, under the "Deleted user" author. */
  comments: { handOverOf(unit: Unit, fromAuthorId: number, toAuthorId: number): Promise<void> }
  now?: () => number
}

export class AccountDeletionService {
  private readonly cancelLinks: SecretKind<undefined>
  /**
   * Accounts whose removal failed (the last live owner of an organization, once the other owner's
   * account was deactivated), held back in this process until their next try: one is logged once
   * a try rather than every run, and however many there are, they never fill a batch.
   */
  private readonly heldBack = new Map<number, { until: number; failures: number }>()

  private readonly users: UserService
  private readonly auth: AuthService
  private readonly posts: PostService
  private readonly events: SecurityEventService
  private readonly mail: MailService
  private readonly settings: AccountDeletionSettings & { publicUrl: string }
  private readonly logger: Logger
  private readonly assertRemovable: RemovalCheck
  private readonly comments: AccountDeletionServiceDependencies['comments']
  private readonly now: () => number

  constructor(dependencies: AccountDeletionServiceDependencies) {
    this.users = dependencies.users
    this.auth = dependencies.auth
    this.posts = dependencies.posts
    this.events = dependencies.events
    this.mail = dependencies.mail
    this.settings = dependencies.settings
    this.logger = dependencies.logger
    this.assertRemovable = dependencies.assertRemovable
    this.comments = dependencies.comments
    this.now = dependencies.now ?? Date.now
    const secrets = dependencies.secrets
    this.cancelLinks = secrets.kind('account_deletion_cancel', { seconds: this.settings.graceDays * 86_400, replacesEarlier: true })
  }

  /** Deletes the caller's account after the grace period (the route checked the session is fresh); when it goes for good. */
  async request(caller: TokenCaller, client: ClientInfo): Promise<{ deletionDueAt: string }> {
    const deletionDueAt = new Date(this.now() + this.settings.graceDays * DAY_MS).toISOString()
    await this.users.scheduleDeletion(caller.user.id, deletionDueAt, async (unit, user) => {
      // Refused now rather than failing at the purge: an organization keeps an owner.
      await this.assertRemovable(unit, user.id)
      const { token } = await this.cancelLinks.issue({ userId: user.id, data: undefined, unit })
      await this.events.record('account_deletion_requested', user.id, client, { unit, details: { deletion_due_at: deletionDueAt } })
      const link = mailedLink(this.settings.cancelUrl, `${this.settings.publicUrl}/account/cancel-deletion`, token)
      const values = { name: user.name, due: new Date(deletionDueAt), days: duration(this.settings.graceDays * 1440), link }
      await this.mail.queue(unit, { template: 'account-deletion-scheduled', to: user.email, locale: user.locale, values })
    })
    // The session that asked ends with the others: the account is gone until it is taken back.
    await this.auth.revokeSessionsOf(caller.user.id, client)
    return { deletionDueAt }
  }

  /** Takes a pending deletion back: the account and the posts hidden with it return; the owner signs in again. */
  async cancel(proof: CancelProof, client: ClientInfo): Promise<void> {
    const userId = 'token' in proof ? await this.userOfLink(proof.token) : await this.userOfPassword(proof.login, proof.password, client)
    const cancelled = await this.users.cancelScheduledDeletion(userId, async (unit) => {
      await this.cancelLinks.retire(userId, { unit })
      await this.events.record('account_deletion_cancelled', userId, client, { unit })
    })
    if (!cancelled) throw new DomainError('conflict', NOT_PENDING, { code: 'deletion_not_pending' })
  }

  private async userOfLink(token: string): Promise<number> {
    const spent = await this.cancelLinks.spend(token)
    if (!spent?.userId) throw invalidToken()
    return spent.userId
  }

  private async userOfPassword(login: string, password: string, client: ClientInfo): Promise<number> {
    const account = await this.auth.provePassword(login, password, client)
    // A right password for an account with nothing to cancel is answered as a wrong one (and
    // counted so at the door): this door tells nobody which password is right.
    if (account.deletionDueAt === null) throw invalidCredentials()
    return account.id
  }

  /** The purge job's run (`at`: a test's clock): removes the accounts whose grace period ended; true while more remain. */
  async purgeDue(at = this.now()): Promise<boolean> {
    const now = new Date(at).toISOString()
    const waiting = [...this.heldBack].filter(([, held]) => held.until > at).map(([id]) => id)
    const ids = await this.users.dueDeletions(now, PURGE_BATCH, waiting)
    const anonymize = this.settings.content === 'anonymize'
    for (const id of ids) {
      try {
        const deletedAuthor = anonymize ? await this.users.deletedAuthorId() : undefined
        await this.users.purgeScheduled(id, now, async (unit, deletedAt) => {
          if (deletedAuthor === undefined) return
          // The published posts others could read, hidden with the account, come back under the
          // "Deleted user" author; drafts and private posts go with the account.
          await this.posts.restoreHiddenWith(unit, id, deletedAt)
          await this.posts.handOverPublishedOf(unit, id, deletedAuthor)
          await this.comments.handOverOf(unit, id, deletedAuthor)
        })
        this.heldBack.delete(id)
      } catch (error) {
        const failures = (this.heldBack.get(id)?.failures ?? 0) + 1
        const until = at + Math.min(HELD_BACK_MAX_MS, HELD_BACK_FIRST_MS * 2 ** (failures - 1))
        this.heldBack.set(id, { until, failures })
        this.logger.warn({ err: error, userId: id, failures, nextTryAt: new Date(until).toISOString() }, 'removing an account whose deletion is due failed; it is tried again later')
      }
    }
    return ids.length === PURGE_BATCH
  }
}
