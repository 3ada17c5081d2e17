// Bans: a superuser shuts every way into an account at once, with a reason (for superusers) and
// a message (for the account's owner), until a time or for good. The ban is on the users row, so
// every process refuses the account from the moment it commits (the users and auth slices read
// it on each way in and each request); its sessions end too, and its open streams close when the
// `user.banned` event reaches them. A ban whose time has passed is no ban: the expiry job only
// clears the row and tells webhooks and streams (`user.unbanned`).
import type { UnitOfWork } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { DomainError, RuleViolation } from '../../shared/errors.js'
import type { AuthService } from '../auth/index.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { ManagedUser, UserService } from '../users/index.js'
import { BANNED_FOREVER, isBanned } from '../users/index.js'

export interface BanInput {
  /** Why, for superusers (ban_reason). */
  reason: string
  /** What the account's owner is shown (the 403's detail); a generic sentence when absent. */
  publicMessage?: string | undefined
  /** When it lifts by itself (ISO 8601, in the future); absent: never. */
  expiresAt?: string | undefined
}

const CANNOT_BAN_SUPERUSER = 'Superusers cannot be banned: take the role away first'
const CANNOT_BAN_SELF = 'You cannot ban yourself'
const EXPIRED_BANS_BATCH = 100

/** How often bans that ran out are cleared and announced (the ban itself lifts on time, whatever this says). */
export const BAN_EXPIRY_CHECK_MS = 30_000

/** What BanService is built from. */
export interface BanServiceDependencies {
  users: UserService
  auth: AuthService
  unitOfWork: UnitOfWork
  events: SecurityEventService
  now?: () => number
}

export class BanService {
  private readonly users: UserService
  private readonly auth: AuthService
  private readonly unitOfWork: UnitOfWork
  private readonly events: SecurityEventService
  private readonly now: () => number

  constructor(dependencies: BanServiceDependencies) {
    this.users = dependencies.users
    this.auth = dependencies.auth
    this.unitOfWork = dependencies.unitOfWork
    this.events = dependencies.events
    this.now = dependencies.now ?? Date.now
  }

  /** Bans a live user (a ban in force is replaced); 409 `cannot_ban_superuser` for a superuser or oneself, 404 for no live user. */
  async ban(actor: Actor, userId: number, input: BanInput, client: ClientInfo): Promise<ManagedUser> {
    const target = await this.users.getManaged(actor, userId)
    if (target.id === actor.id) throw new DomainError('conflict', CANNOT_BAN_SELF, { code: 'cannot_ban_superuser' })
    if (target.isSuperuser) throw new DomainError('conflict', CANNOT_BAN_SUPERUSER, { code: 'cannot_ban_superuser' })
    const until = this.untilOf(input.expiresAt)
    await this.unitOfWork.run(async (unit) => {
      const banned = await this.users.setBan(unit, userId, { until, reason: input.reason, message: input.publicMessage ?? null, by: actor.id })
      if (!banned) return this.users.get(userId)
      await this.events.record('user_banned', userId, client, { unit, actorId: actor.id, details: { banned_until: until === BANNED_FOREVER ? 'forever' : until } })
      return banned
    })
    // Every request is refused from the commit on; ending the sessions keeps a lifted ban from bringing them back.
    await this.auth.revokeSessionsOf(userId, client)
    return this.users.getManaged(actor, userId)
  }

  /** Lifts a user's ban (nothing happens when there is none); 404 for no such user. */
  async lift(actor: Actor, userId: number, client: ClientInfo): Promise<ManagedUser> {
    const target = await this.users.getManaged(actor, userId)
    if (target.bannedUntil !== null) {
      await this.unitOfWork.run(async (unit) => {
        const lifted = await this.users.clearBan(unit, userId)
        if (lifted) await this.events.record('user_unbanned', userId, client, { unit, actorId: actor.id, details: { was_in_force: isBanned(target, this.now()) } })
      })
    }
    return this.users.getManaged(actor, userId)
  }

  /** The expiry job's run: clears bans that ran out, each once in any number of processes; true while more remain. */
  async liftExpired(): Promise<boolean> {
    const now = new Date(this.now()).toISOString()
    const ids = await this.users.expiredBans(now, EXPIRED_BANS_BATCH)
    for (const id of ids) {
      await this.unitOfWork.run(async (unit) => {
        const lifted = await this.users.clearBan(unit, id, now)
        if (lifted) await this.events.record('user_unbanned', id, null, { unit, details: { expired: true } })
      })
    }
    return ids.length === EXPIRED_BANS_BATCH
  }

  private untilOf(expiresAt: string | undefined): string {
    if (expiresAt === undefined) return BANNED_FOREVER
    const time = Date.parse(expiresAt)
    if (!(time > this.now())) throw new RuleViolation('expires_at', 'expires_at must be in the future', 'value_error.datetime.past')
    if (new Date(time).toISOString() >= BANNED_FOREVER) return BANNED_FOREVER
    return new Date(time).toISOString()
  }
}

