// Support impersonation: a superuser whose session is fresh (and, when they have one, proven by
// their second factor) acts as a user for at most an hour, read-only or in full. They get one
// access token carrying `act: {sub}` and no refresh token; it is refused on every route that
// changes the account's ways in (impersonation.http.ts, from the route table), every request made
// with it is recorded with both ids, and the user sees it in their own security log (and by mail
// with IMPERSONATION_NOTIFY=mail). Superusers and banned users are never impersonated, and an
// impersonation never starts another.
import type { UnitOfWork } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser, DomainError, impersonationForbidden } from '../../shared/errors.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { fetchPaged } from '../../shared/paging.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { AuthService, ImpersonationMode, TokenCaller } from '../auth/index.js'
import type { MailService } from '../mail/index.js'
import { duration, phrase } from '../mail/index.js'
import type { SecurityEventService } from '../security-events/index.js'
import type { User, UserService } from '../users/index.js'
import { isBanned } from '../users/index.js'
import type { ImpersonationFilter, ImpersonationRequestRow, ImpersonationRow, ImpersonationsRepository } from './impersonations.repository.js'

export const IMPERSONATION_MAX_MINUTES = 60
export const IMPERSONATION_DEFAULT_MINUTES = 15

export interface ImpersonationInput {
  reason: string
  minutes: number
  mode: ImpersonationMode
}

export interface StartedImpersonation {
  id: string
  accessToken: string
  expiresIn: number
  expiresAt: string
  mode: ImpersonationMode
  user: User
}

export interface Impersonation {
  id: string
  userId: number
  superuserId: number
  mode: ImpersonationMode
  reason: string
  createdAt: string
  expiresAt: string
  endedAt: string | null
}

export interface ImpersonationRequest {
  id: number
  method: string
  route: string
  status: number
  createdAt: string
}

const CANNOT_IMPERSONATE_SUPERUSER = 'Superusers cannot be impersonated'
const CANNOT_IMPERSONATE_BANNED = 'A banned user cannot be impersonated: lift the ban first'
const CANNOT_IMPERSONATE_INACTIVE = 'An account nobody can sign in to cannot be impersonated'
const NOTHING_TO_END = 'No impersonation of yours is running'

const toImpersonation = (row: ImpersonationRow): Impersonation => ({
  id: row.id,
  userId: row.user_id,
  superuserId: row.superuser_id,
  mode: row.mode as ImpersonationMode,
  reason: row.reason,
  createdAt: toIsoString(row.created_at),
  expiresAt: toIsoString(row.expires_at),
  endedAt: row.ended_at === null ? null : toIsoString(row.ended_at),
})

const toRequest = (row: ImpersonationRequestRow): ImpersonationRequest => ({ id: row.id, method: row.method, route: row.route, status: row.status, createdAt: toIsoString(row.created_at) })

/** What ImpersonationService is built from. */
export interface ImpersonationServiceDependencies {
  repository: ImpersonationsRepository
  users: UserService
  auth: AuthService
  unitOfWork: UnitOfWork
  events: SecurityEventService
  mail: MailService
  /** IMPERSONATION_NOTIFY=mail: the user is mailed when support opens their account. */
  notifyByMail: boolean
}

export class ImpersonationService {
  private readonly repository: ImpersonationsRepository
  private readonly users: UserService
  private readonly auth: AuthService
  private readonly unitOfWork: UnitOfWork
  private readonly events: SecurityEventService
  private readonly mail: MailService
  /** IMPERSONATION_NOTIFY=mail: the user is mailed when support opens their account. */
  private readonly notifyByMail: boolean

  constructor(dependencies: ImpersonationServiceDependencies) {
    this.repository = dependencies.repository
    this.users = dependencies.users
    this.auth = dependencies.auth
    this.unitOfWork = dependencies.unitOfWork
    this.events = dependencies.events
    this.mail = dependencies.mail
    this.notifyByMail = dependencies.notifyByMail
  }

  /** Opens `userId`'s account to the calling superuser (whose session the route checked is fresh). */
  async start(caller: TokenCaller, userId: number, input: ImpersonationInput): Promise<StartedImpersonation> {
    if (caller.token.actor) throw impersonationForbidden()
    assertSuperuser(caller.user)
    const user = await this.users.get(userId)
    if (user.isSuperuser) throw new DomainError('conflict', CANNOT_IMPERSONATE_SUPERUSER, { code: 'cannot_impersonate' })
    if (isBanned(user)) throw new DomainError('conflict', CANNOT_IMPERSONATE_BANNED, { code: 'cannot_impersonate' })
    // An account nothing signs in to (the service's own "Deleted user") has no session to open.
    if (!user.isActive) throw new DomainError('conflict', CANNOT_IMPERSONATE_INACTIVE, { code: 'cannot_impersonate' })
    const seconds = input.minutes * 60
    const session = await this.auth.startImpersonation(user.id, { superuserId: caller.user.id, mode: input.mode }, seconds)
    const expiresAt = session.expiresAt.toISOString()
    try {
      await this.unitOfWork.run(async (unit) => {
        await this.repository.in(unit).insertImpersonation({ id: session.sessionId, userId: user.id, superuserId: caller.user.id, mode: input.mode, reason: input.reason, expiresAt: session.expiresAt })
        const details = { mode: input.mode, reason: input.reason, expires_at: expiresAt }
        // In the user's own log; the superuser's address stays out of it.
        await this.events.record('impersonation_started', user.id, null, { unit, actorId: caller.user.id, details })
        if (this.notifyByMail) {
          const values = { name: user.name, mode: phrase(`mode.${input.mode}`), reason: input.reason, duration: duration(input.minutes) }
          await this.mail.queue(unit, { template: 'impersonation-started', to: user.email, locale: user.locale, values })
        }
      })
    } catch (error) {
      await this.auth.endSession(session.sessionId)
      throw error
    }
    return { id: session.sessionId, accessToken: session.accessToken, expiresIn: seconds, expiresAt, mode: input.mode, user }
  }

  /**
   * Ends impersonations early: called with an impersonation's own token, that one; called by a
   * superuser, every one of theirs still running (404 `impersonation_not_found` when none is, as
   * for anyone who never started one).
   * Returns how many ended.
   */
  async end(caller: TokenCaller): Promise<number> {
    const actor = caller.token.actor
    if (actor) return (await this.endOne(caller.token.sessionId)) ? 1 : 0
    // Anyone else ends what they started: a superuser's, or nothing (404) for anyone who never could.
    let ended = 0
    for (const id of await this.repository.runningImpersonationsBy(caller.user.id)) if (await this.endOne(id)) ended += 1
    if (ended === 0) throw new DomainError('not_found', NOTHING_TO_END, { code: 'impersonation_not_found' })
    return ended
  }

  /** Marks an impersonation ended whose session ended another way (a logout with its token); nothing when it already was. */
  async ended(id: string): Promise<void> {
    await this.endOne(id)
  }

  private async endOne(id: string): Promise<boolean> {
    await this.auth.endSession(id)
    return this.unitOfWork.run(async (unit) => {
      const row = await this.repository.in(unit).endImpersonation(id)
      if (row) await this.events.record('impersonation_ended', row.user_id, null, { unit, actorId: row.superuser_id, details: { mode: row.mode } })
      return row !== undefined
    })
  }

  /** Records one request made in an impersonation (after its answer). */
  recordRequest(impersonationId: string, request: { method: string; route: string; status: number }): Promise<void> {
    return this.repository.insertImpersonationRequest({ impersonationId, ...request })
  }

  /** Impersonations, newest first, by user or superuser (superusers). */
  list(actor: Actor, filter: ImpersonationFilter, request: PageRequest): Promise<Paged<Impersonation>> {
    assertSuperuser(actor)
    const rows = ({ offset, limit }: RowWindow) => this.repository.listImpersonations(filter, offset, limit)
    return fetchPaged(request, { rows, count: () => this.repository.countImpersonations(filter), keyOf: () => 0 }, toImpersonation)
  }

  /** The requests made in one impersonation, in order (superusers; 404 for an unknown one). */
  async requests(actor: Actor, id: string, request: PageRequest): Promise<Paged<ImpersonationRequest>> {
    assertSuperuser(actor)
    if (!(await this.repository.findImpersonation(id))) throw new DomainError('not_found', 'No impersonation with this id', { code: 'impersonation_not_found' })
    const rows = ({ offset, limit }: RowWindow) => this.repository.listImpersonationRequests(id, offset, limit)
    return fetchPaged(request, { rows, count: () => this.repository.countImpersonationRequests(id), keyOf: () => 0 }, toRequest)
  }
}
