// User rules: who may do what, uniqueness, soft and permanent deletion, avatars. No HTTP here;
// every operation serves every API version, which choose their own shapes.
import { randomInt } from 'node:crypto'

import type { AdminAccount } from '../../config.js'
import { uniqueViolation } from '../../db/errors.js'
import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { apiKeysRefused, assertSuperuser, DomainError, forbidden, impersonationForbidden, notAuthenticated, RuleViolation } from '../../shared/errors.js'
import { canonicalLocale, preferredLocale } from '../../shared/locale.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { fetchPaged, offsetOf } from '../../shared/paging.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { AvatarService, AvatarUpload } from '../avatars/index.js'
import { DEFAULT_PROFILE_IMAGE_URL } from '../avatars/index.js'
import type { CollectionFields, FieldLevel } from '../content-fields/index.js'
import { fieldsColumn, mergedFields, narrowsByIndex, readFilter, UNINDEXED_FILTER_MAX_ROWS } from '../content-fields/index.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { TierService } from '../tiers/index.js'
import { adminAccountProblem } from './admin-account.js'
import type { BanRow } from './bans.js'
import { banRefusal } from './bans.js'
import type { DomainEvents } from './domain-events.js'
import type { PasswordGuesses } from './password-guesses.js'
import { assertAcceptablePassword } from './password-policy.js'
import type { PasswordHasher } from './passwords.js'
import { assertUsableAddress } from './reserved-addresses.js'
import type { ManagedUser, NewUserInput, ProviderProfile, SignupPolicy, User, UserChanges, UserDirectoryQuery, UserListFilter, UserSearchFilter } from './user.js'
import { limitIdentity, NO_PASSWORD, toManagedUser, toUser, userWriterLevel } from './user.js'
import type { UserChangeLog, UserEventType } from './user-change-log.js'
import type { UserDirectoryRepository } from './user-directory.repository.js'
import { USER_FILTER, userFilterTooBroad } from './user-filter.js'
import type { UserLifecycle } from './user-lifecycle.js'
import type { UsersRepository } from './users.repository.js'

/** Lists are in id order: the id is the key keyset paging continues after. */
const userKey = (row: { id: number }) => row.id

export const USER_NOT_FOUND = 'User not found'
export const EMAIL_TAKEN = 'Email is already registered'
export const USERNAME_TAKEN = 'Username not available'
export const USER_NOT_DELETED = 'User is not deleted'

const emailTaken = () => new DomainError('conflict', EMAIL_TAKEN, { code: 'email_taken' })
const usernameTaken = () => new DomainError('conflict', USERNAME_TAKEN, { code: 'username_taken' })
/**
 * A search's total_count is exact up to this many users, and this many past it: counting every
 * match of a short text on a large table would cost a scan of the table on each request.
 */
export const SEARCH_TOTAL_CAP = 10_000

/** Counting goes at least one row past the page asked for, so `has_more` stays true while rows follow. */
const countLimitFor = (request: PageRequest) => Math.max(SEARCH_TOTAL_CAP, offsetOf(request) + request.limit + 1)

export const INCORRECT_PASSWORD = 'Incorrect password'
export const incorrectPassword = () => new DomainError('invalid', INCORRECT_PASSWORD, { code: 'incorrect_password' })

/** A provider's display name as a valid name (2-30 characters, no control characters), else the username. */
/** A well-formed language tag, canonical; else 422 on `locale`. */
function localeOrRefuse(tag: string): string {
  const canonical = canonicalLocale(tag)
  if (canonical === undefined) throw new RuleViolation('locale', 'Must be a BCP 47 language tag, such as en, de-AT or pt-BR', 'value_error.locale')
  return canonical
}

function displayName(name: string | undefined, username: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  const cleaned = (name ?? '').replace(/[\u0000-\u001F\u007F\u0085\u2028\u2029]+/g, ' ').trim().slice(0, 30).trim()
  return cleaned.length >= 2 ? cleaned : username.padEnd(2, '_')
}

function userNotFound(): never {
  throw new DomainError('not_found', USER_NOT_FOUND, { code: 'user_not_found' })
}

/** Maps a unique-index violation to the conflict the client should see; rethrows anything else. */
function conflictFrom(error: unknown): never {
  const constraint = uniqueViolation(error)
  if (constraint?.includes('email')) throw emailTaken()
  if (constraint?.includes('username')) throw usernameTaken()
  throw error
}

function assertSelfOrSuperuser(actor: Actor, userId: number): void {
  if (actor.id !== userId && !actor.isSuperuser) throw forbidden()
}

/**
 * The sign-up rule, in one place: with an `authenticated` policy only a logged-in caller may
 * create accounts. v1 follows USER_SIGNUP; v2 always asks for `authenticated`.
 */
export function assertMaySignUp(caller: Actor | null, policy: SignupPolicy): void {
  if (policy === 'authenticated' && caller === null) throw notAuthenticated()
}

export interface SuperuserOutcome {
  user: User
  /** Created now, already a superuser, or an existing account promoted on request. */
  outcome: 'created' | 'present' | 'promoted'
}

/** Checks another feature (abuse) makes on what a user brings: a new password, a new address. */
export interface UserScreens {
  /**
   * 400 `password_breached` for a password in known breaches; with `whenReachable`, a list out of
   * reach lets the password through whatever BREACHED_PASSWORDS_FAIL says (the configured superuser at start).
   */
  password(password: string, userId: number | null, options?: { whenReachable?: boolean }): Promise<void>
  /** 400 `email_domain_blocked` for an address whose domain may not be used. */
  emailDomain(email: string, userId: number | null): Promise<void>
}

const NO_SCREENS: UserScreens = { password: async () => {}, emailDomain: async () => {} }

/** The address the "Deleted user" account is made with (`.invalid` never delivers, and no sign-up may take it); it is found by its kind. */
const DELETED_AUTHOR_EMAIL = 'deleted-user@users.invalid'

/** What UserService is built from. */
export interface UserServiceDependencies {
  users: UsersRepository
  managedUsers: UserDirectoryRepository
  unitOfWork: UnitOfWork
  /** After-commit events: 'user.email_changed', 'user.email_verified'. */
  domainEvents: DomainEvents
  /** What other features write in a change's own unit of work. */
  lifecycle: UserLifecycle
  changes: UserChangeLog
  passwords: PasswordHasher
  avatars: AvatarService
  tiers: TierService
  events: SecurityEventService
  guesses: PasswordGuesses
  /** The abuse feature's checks on a new password (breaches) and a new address (its domain). */
  screens?: UserScreens
  /** The custom fields declared for users (CONTENT_SCHEMA). */
  fields: CollectionFields
}

/** Who reads a user list: what decides which fields its filter may name. */
type Viewer = Pick<Actor, 'id' | 'isSuperuser'> | null

export class UserService {
  private readonly users: UsersRepository
  private readonly managedUsers: UserDirectoryRepository
  private readonly unitOfWork: UnitOfWork
  /** After-commit events: 'user.email_changed', 'user.email_verified'. */
  private readonly domainEvents: DomainEvents
  /** What other features write in a change's own unit of work. */
  private readonly lifecycle: UserLifecycle
  private readonly changes: UserChangeLog
  private readonly passwords: PasswordHasher
  private readonly avatars: AvatarService
  private readonly tiers: TierService
  private readonly events: SecurityEventService
  private readonly guesses: PasswordGuesses
  /** The abuse feature's checks on a new password (breaches) and a new address (its domain). */
  private readonly screens: UserScreens
  private readonly fields: CollectionFields

  constructor(dependencies: UserServiceDependencies) {
    this.users = dependencies.users
    this.managedUsers = dependencies.managedUsers
    this.unitOfWork = dependencies.unitOfWork
    this.domainEvents = dependencies.domainEvents
    this.lifecycle = dependencies.lifecycle
    this.changes = dependencies.changes
    this.passwords = dependencies.passwords
    this.avatars = dependencies.avatars
    this.tiers = dependencies.tiers
    this.events = dependencies.events
    this.guesses = dependencies.guesses
    this.screens = dependencies.screens ?? NO_SCREENS
    this.fields = dependencies.fields
  }

  /** A new password's checks: the policy (422) and the breach list (400 `password_breached`); `field` names it in a refusal. */
  async assertAcceptablePassword(password: string, account: { username: string; email: string }, field: string, userId: number | null, options: { breachCheckWhenReachable?: boolean } = {}): Promise<void> {
    await assertAcceptablePassword(password, account, field)
    await this.screens.password(password, userId, { whenReachable: options.breachCheckWhenReachable ?? false })
  }

  /** 403 `account_banned`, with the ban's public message, when the user is banned now. */
  async assertNotBanned(user: User): Promise<void> {
    const refusal = await banRefusal(user, (id) => this.users.findBanMessage(id))
    if (refusal) throw refusal
  }

  /** Bans a live user in `unit`, publishing `user.banned`; undefined when there is no live user. */
  async setBan(unit: Unit, id: number, ban: BanRow): Promise<User | undefined> {
    const row = await this.users.in(unit).setBan(id, ban)
    return row && (await this.changed(unit, 'user.banned', toUser(row)))
  }

  /** Lifts a user's ban in `unit` (`expiredBy`: only one that ran out by then), publishing `user.unbanned`; undefined when there was none. */
  async clearBan(unit: Unit, id: number, expiredBy?: string): Promise<User | undefined> {
    const repository = this.users.in(unit)
    const row = expiredBy === undefined ? await repository.clearBan(id) : await repository.clearExpiredBan(id, expiredBy)
    return row && (await this.changed(unit, 'user.unbanned', toUser(row)))
  }

  /** Ids of users whose ban ran out by `now`, still to be lifted. */
  expiredBans(now: string, limit: number): Promise<number[]> {
    return this.users.findExpiredBans(now, limit)
  }

  /** Whether `password` is the user's; each check spends the account's login budget (429 once spent). */
  async checkPassword(user: User, password: string, client: ClientInfo): Promise<boolean> {
    await this.guesses.count(limitIdentity(user), client.ip ?? '')
    return this.passwordMatches(user.id, password)
  }

  async get(id: number): Promise<User> {
    return (await this.find(id)) ?? userNotFound()
  }

  /**
   * A live user to show (a profile): with read replicas, read from one that has replayed the
   * caller's last write. A decision about the user (a ban, a sign-in) takes `find` or `get`.
   */
  async profile(id: number): Promise<User> {
    const row = await this.users.findProfileById(id)
    return row ? toUser(row) : userNotFound()
  }

  /** A live user, or undefined, as the primary has them now. */
  async find(id: number): Promise<User | undefined> {
    const row = await this.users.findUserById(id)
    return row && toUser(row)
  }

  /** The live users of `ids` (any order; the deleted left out), in one query. */
  async findMany(ids: readonly number[]): Promise<User[]> {
    return ids.length === 0 ? [] : (await this.users.findUsersByIds(ids)).map(toUser)
  }

  /**
   * A live user whose login session `sessionId` is live too (the caller of a request), or
   * undefined; with `unrevokedJti`, also undefined when that access token is revoked in the
   * database (checked in the same statement).
   */
  async findInSession(id: number, sessionId: string, unrevokedJti?: string): Promise<User | undefined> {
    const row = unrevokedJti === undefined ? await this.users.findUserInLiveSession(id, sessionId) : await this.users.findCaller(id, sessionId, unrevokedJti)
    return row && toUser(row)
  }

  /**
   * The live account a login name (username or email) names, as a stable identity: its id and
   * creation time (ids alone repeat across databases that share one Redis).
   */
  async findLoginAccount(login: string): Promise<{ id: number; identity: string } | undefined> {
    const row = await this.users.findLoginAccount(login)
    return row && { id: row.id, identity: limitIdentity({ id: row.id, createdAt: toIsoString(row.created_at) }) }
  }

  /** The stored credentials of a live, active account (or one in its deletion's grace period, `deletion_due_at` set), by username or email. */
  findCredentials(login: string): Promise<{ id: number; hashed_password: string; deletion_due_at: Date | string | null } | undefined> {
    return this.users.findCredentials(login)
  }

  /**
   * Ordered by id; `search`, when given, matches the name or username. `filterText`: the list's
   * `filter` (docs/api.md "Filter"), read for `viewer` (400 invalid_filter), and refused on more
   * than UNINDEXED_FILTER_MAX_ROWS users unless an index narrows it (422 filter_too_broad).
   */
  async list(search: string | undefined, request: PageRequest, filterText?: string, viewer: Viewer = null): Promise<Paged<User>> {
    const filter = await this.listFilter(filterText, viewer)
    const rows = (window: RowWindow) => this.users.listUsers(window, search, filter)
    return fetchPaged(request, { rows, count: () => this.users.countUsers(search, countLimitFor(request), filter), keyOf: userKey }, toUser)
  }

  /** Ordered by id; `filterText` as the list's. */
  async search(asked: Omit<UserSearchFilter, 'filter'>, request: PageRequest, filterText?: string, viewer: Viewer = null): Promise<Paged<User>> {
    const filter = { ...asked, filter: await this.listFilter(filterText, viewer) }
    const rows = (window: RowWindow) => this.users.searchUsers(filter, window)
    return fetchPaged(request, { rows, count: () => this.users.countSearchUsers(filter, countLimitFor(request)), keyOf: userKey }, toUser)
  }

  /**
   * A user list's `filter` as the viewer may ask it (a private field compared on their own row
   * only); 422 filter_too_broad for one no index narrows, of more users than it may check.
   */
  private async listFilter(filterText: string | undefined, viewer: Viewer): Promise<UserListFilter | undefined> {
    if (filterText === undefined) return undefined
    const expression = readFilter(filterText, USER_FILTER, this.fields, { signedIn: viewer !== null, isSuperuser: viewer?.isSuperuser === true })
    if (!narrowsByIndex(expression, USER_FILTER) && (await this.users.countUsers(undefined, 0)) > UNINDEXED_FILTER_MAX_ROWS) throw userFilterTooBroad()
    return { expression, ownerOfPrivate: viewer?.isSuperuser ? null : (viewer?.id ?? 0) }
  }

  /** Users in any state, for superusers: searched, filtered by state, sorted by an indexed column. */
  directory(actor: Actor, query: UserDirectoryQuery, request: PageRequest): Promise<Paged<ManagedUser>> {
    assertSuperuser(actor)
    const rows = (window: RowWindow) => this.managedUsers.listManagedUsers(query, window)
    return fetchPaged(request, { rows, count: () => this.managedUsers.countManagedUsers(query), keyOf: userKey }, toManagedUser)
  }

  /** Any user, soft-deleted or not, for superusers. */
  async getManaged(actor: Actor, id: number): Promise<ManagedUser> {
    assertSuperuser(actor)
    const row = await this.managedUsers.findManagedUser(id)
    return row ? toManagedUser(row) : userNotFound()
  }

  /** Superusers only; null removes the tier. */
  async setTier(actor: Actor, id: number, tierId: number | null): Promise<User> {
    assertSuperuser(actor)
    await this.get(id)
    if (tierId !== null) await this.tiers.get(tierId)
    const user = await this.unitOfWork.run(async (unit) => {
      const users = this.users.in(unit)
      if (!(await users.setUserTier(id, tierId))) return undefined
      const row = await users.findUserById(id)
      return row && (await this.changed(unit, 'user.updated', toUser(row)))
    })
    return user ?? userNotFound()
  }

  /** Checks for a taken email, then username, before hashing; the unique indexes settle any race. */
  async create(input: NewUserInput, options: { superuser?: boolean; breachCheckWhenReachable?: boolean; creator?: Pick<Actor, 'isSuperuser'> } = {}): Promise<User> {
    const row = await this.newUserRow(input, options.superuser ?? false, null, options.breachCheckWhenReachable ?? false, userWriterLevel(options.creator))
    try {
      return await this.unitOfWork.run(async (unit) => this.changed(unit, 'user.created', toUser(await this.users.in(unit).insertUser(row))))
    } catch (error) {
      return conflictFrom(error)
    }
  }

  /**
   * Someone signs themselves up: the account, its `user_signed_up` security event and whatever
   * other features do for a new user (the verification mail) commit together.
   */
  async signUp(input: NewUserInput, client: ClientInfo): Promise<User> {
    const row = await this.newUserRow(input, false, client)
    try {
      return await this.unitOfWork.run(async (unit) => {
        const user = toUser(await this.users.in(unit).insertUser(row))
        await this.events.record('user_signed_up', user.id, client, { unit })
        await this.lifecycle.signedUp(unit, user)
        return await this.changed(unit, 'user.created', user)
      })
    } catch (error) {
      return conflictFrom(error)
    }
  }

  /**
   * Someone an identity provider vouches for signs themselves up, in the caller's unit of work
   * (which links the identity they signed up with): no password (they can set one through a
   * reset), verified when the provider says the address is, a username made unique from the one
   * they go by.
   */
  async signUpFromProvider(unit: Unit, profile: ProviderProfile, client: ClientInfo): Promise<User> {
    assertUsableAddress(profile.email)
    const users = this.users.in(unit)
    if (await users.emailTaken(profile.email)) throw emailTaken()
    const username = await this.freeUsername(users, profile.username ?? profile.email.split('@')[0] ?? '')
    const row = {
      name: displayName(profile.name, username),
      username,
      email: profile.email,
      hashed_password: NO_PASSWORD,
      profile_image_url: DEFAULT_PROFILE_IMAGE_URL,
      age: null,
      is_superuser: false,
      locale: preferredLocale(client.acceptLanguage) ?? null,
    }
    let user: User
    try {
      user = toUser(await users.insertUser(row))
    } catch (error) {
      return conflictFrom(error)
    }
    if (profile.emailVerified && (await users.markEmailVerified(user.id, user.email))) user = { ...user, isVerified: true }
    await this.events.record('user_signed_up', user.id, client, { unit })
    await this.lifecycle.signedUp(unit, user)
    return this.changed(unit, 'user.created', user)
  }

  /** `wanted` as a valid username, with digits added until no account holds it. */
  private async freeUsername(users: UsersRepository, wanted: string): Promise<string> {
    const base = (wanted.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '') || 'user').slice(0, 20).padEnd(2, '_')
    if (!(await users.usernameTaken(base))) return base
    for (let attempt = 0; attempt < 8; attempt++) {
      const candidate = `${base.slice(0, 14)}_${randomInt(10_000, 100_000)}`
      if (!(await users.usernameTaken(candidate))) return candidate
    }
    throw usernameTaken()
  }

  /** Checks a new account's password and uniqueness, then hashes the password. */
  private async newUserRow(input: NewUserInput, superuser: boolean, client: ClientInfo | null, breachCheckWhenReachable = false, fieldsLevel: FieldLevel = 'private') {
    assertUsableAddress(input.email)
    this.fields.assertWritable(input.fields, fieldsLevel)
    const fields = fieldsColumn(mergedFields({}, this.fields.normalized(input.fields)))
    const locale = input.locale === undefined ? (preferredLocale(client?.acceptLanguage) ?? null) : localeOrRefuse(input.locale)
    await this.screens.emailDomain(input.email, null)
    await this.assertAcceptablePassword(input.password, input, 'password', null, { breachCheckWhenReachable })
    if (await this.users.emailTaken(input.email)) throw emailTaken()
    if (await this.users.usernameTaken(input.username)) throw usernameTaken()
    return {
      name: input.name,
      username: input.username,
      email: input.email,
      hashed_password: await this.passwords.hash(input.password),
      profile_image_url: DEFAULT_PROFILE_IMAGE_URL,
      age: input.age ?? null,
      is_superuser: superuser,
      locale,
      fields,
    }
  }

  /**
   * Applies a user's changes. Moving the email moves the account's recovery, so the user proves
   * it is them with `currentPassword` (a superuser changing another user's email does not).
   */
  async update(actor: Actor, id: number, changes: UserChanges, client: ClientInfo): Promise<User> {
    // An API key never manages email (nor keys, sessions or passwords).
    if (changes.email !== undefined && actor.viaApiKey) throw apiKeysRefused()
    if (changes.email !== undefined && actor.impersonatedBy !== undefined) throw impersonationForbidden()
    assertSelfOrSuperuser(actor, id)
    this.fields.assertWritable(changes.fields, userWriterLevel(actor))
    if (changes.email !== undefined) assertUsableAddress(changes.email)
    const current = await this.get(id)
    const movesEmail = changes.email !== undefined && changes.email.toLowerCase() !== current.email.toLowerCase()
    if (movesEmail && !(actor.isSuperuser && actor.id !== id)) {
      if (changes.currentPassword === undefined || !(await this.checkPassword(current, changes.currentPassword, client))) throw incorrectPassword()
    }
    // A blocked domain is refused before anything tells whether the address has an account.
    if (movesEmail) await this.screens.emailDomain(changes.email!, id)
    if (changes.email !== undefined && (await this.users.emailTaken(changes.email, id))) {
      throw emailTaken()
    }
    if (changes.username !== undefined && (await this.users.usernameTaken(changes.username, id))) {
      throw usernameTaken()
    }
    const { profileImageUrl, currentPassword: _proof, locale, fields, ...columns } = changes
    const language = locale === undefined ? {} : { locale: locale === null ? null : localeOrRefuse(locale) }
    // A client-written image URL is a link: it replaces the user's own upload, which is then deleted.
    const link = profileImageUrl === undefined ? {} : { profile_image_url: profileImageUrl, avatar_key: null }
    // A new address is unverified until its owner proves they read it.
    const emailChanged = changes.email !== undefined && changes.email.toLowerCase() !== current.email.toLowerCase()
    let updated
    try {
      const merge = fields && ((stored: User['storedFields']) => fieldsColumn(mergedFields(stored, this.fields.normalized(fields))))
      updated = await this.updateRow(id, { ...columns, ...language, ...link, ...(emailChanged ? { is_verified: 0 as const } : {}) }, merge)
    } catch (error) {
      return conflictFrom(error)
    }
    if (!updated) userNotFound()
    if (profileImageUrl !== undefined) await this.avatars.remove(current.avatarKey)
    if (emailChanged) await this.domainEvents.publish('user.email_changed', { user: updated, previousEmail: current.email })
    return updated
  }

  /**
   * Puts back the email an undone change replaced, verified (its owner followed the link mailed
   * there). 409 when another account holds it meanwhile.
   */
  async revertEmail(userId: number, email: string): Promise<User> {
    if (await this.users.emailTaken(email, userId)) throw emailTaken()
    let updated
    try {
      updated = await this.updateRow(userId, { email, is_verified: 1 })
    } catch (error) {
      return conflictFrom(error)
    }
    return updated ?? userNotFound()
  }

  /** A live, active user by email (password reset), or undefined. */
  async findActiveByEmail(email: string): Promise<User | undefined> {
    const row = await this.users.findActiveUserByEmail(email)
    return row && toUser(row)
  }

  /** Whether the account has a password (one made through a provider has none until a reset sets one). */
  async hasPassword(id: number): Promise<boolean> {
    const hashed = await this.users.findHashedPassword(id)
    return hashed !== undefined && hashed !== NO_PASSWORD
  }

  /** Removes the account's password: nothing verifies against it until a reset sets a new one. */
  async removePassword(id: number): Promise<boolean> {
    const hashed = await this.users.findHashedPassword(id)
    if (hashed === undefined || hashed === NO_PASSWORD) return false
    return this.users.setHashedPassword(id, NO_PASSWORD)
  }

  /**
   * Whether the account ever proved it reads its mailbox (a verification link, an email sign-in,
   * a reset, or a provider that vouched for the address). An account that never did may hold
   * ways in someone else added with the owner's address (account pre-hijacking).
   */
  async hasProvedMailbox(id: number): Promise<boolean> {
    return (await this.users.findMailboxProven(id)) === true
  }

  async passwordMatches(id: number, password: string): Promise<boolean> {
    const hashed = await this.users.findHashedPassword(id)
    return hashed === undefined ? false : this.passwords.verify(hashed, password)
  }

  /** Sets a new password (after the same policy as at sign-up; a refusal names `new_password`, as both requests that set one do). */
  async setPassword(user: User, password: string): Promise<void> {
    await this.assertAcceptablePassword(password, user, 'new_password', user.id)
    if (!(await this.users.setHashedPassword(user.id, await this.passwords.hash(password)))) userNotFound()
  }

  /** Marks the user verified if `email` is still their address ('user.email_verified' only when they were not yet). */
  async markEmailVerified(id: number, email: string): Promise<boolean> {
    const outcome = await this.unitOfWork.run(async (unit) => {
      const users = this.users.in(unit)
      const before = await users.findUserById(id)
      if (!(await users.markEmailVerified(id, email))) return { marked: false }
      if (!before || before.is_verified) return { marked: true }
      const verified = await this.changed(unit, 'user.email_verified', { ...toUser(before), isVerified: true })
      return { marked: true, verified }
    })
    if (outcome.verified) await this.domainEvents.publish('user.email_verified', { user: outcome.verified })
    return outcome.marked
  }

  /** The user and their posts disappear together, in one transaction. */
  async softDelete(actor: Actor, id: number): Promise<void> {
    assertSelfOrSuperuser(actor, id)
    const deleted = await this.unitOfWork.run(async (unit) => {
      const users = this.users.in(unit)
      if (!(await users.softDeleteUser(id))) return false
      await this.lifecycle.softDeleted(unit, id)
      const row = await users.findAnyUserById(id)
      if (row) await this.changed(unit, 'user.deleted', toUser(row))
      return true
    })
    if (!deleted) userNotFound()
  }

  /**
   * Superusers only: undoes a soft delete. The user's posts that were hidden with them come back;
   * posts they had deleted themselves before stay deleted. Sessions ended by the deletion stay ended.
   */
  async restore(actor: Actor, id: number): Promise<User> {
    assertSuperuser(actor)
    await this.unitOfWork.run(async (unit) => {
      const users = this.users.in(unit)
      const deletedAt = await this.deletionOf(users, id)
      if (!(await users.restoreUser(id))) userNotFound()
      await this.lifecycle.restored(unit, id, deletedAt)
      const row = await users.findUserById(id)
      if (row) await this.changed(unit, 'user.restored', toUser(row))
    })
    return this.get(id)
  }

  /** What restore() would refuse, refused before anything else is done: superusers only, 404, 409. */
  async assertRestorable(actor: Actor, id: number): Promise<void> {
    assertSuperuser(actor)
    await this.deletionOf(this.users, id)
  }

  /** When a soft-deleted user was deleted; 404 without such a row, 409 for a live user. */
  private async deletionOf(users: UsersRepository, id: number): Promise<string | null> {
    const deletion = await users.findDeletion(id)
    if (!deletion) userNotFound()
    if (!deletion.deleted) throw new DomainError('conflict', USER_NOT_DELETED, { code: 'user_not_deleted' })
    return deletion.deletedAt
  }

  /**
   * The owner asked to delete their account: it is soft-deleted now (hidden, their posts with it,
   * `user.deleted`) and removed for good at `dueAt`; `inUnit` writes what goes with it (the
   * cancel link's mail). 404 when there is no live user.
   */
  async scheduleDeletion(id: number, dueAt: string, inUnit: (unit: Unit, user: User) => Promise<void>): Promise<User> {
    const user = await this.unitOfWork.run(async (unit) => {
      const users = this.users.in(unit)
      if (!(await users.scheduleDeletion(id, dueAt))) return undefined
      await this.lifecycle.softDeleted(unit, id)
      const row = await users.findAnyUserById(id)
      if (!row) return undefined
      const deleted = await this.changed(unit, 'user.deleted', toUser(row))
      await inUnit(unit, deleted)
      return deleted
    })
    return user ?? userNotFound()
  }

  /** Takes back a scheduled deletion in its grace period (the user and the posts hidden with them come back); false when none is pending. */
  async cancelScheduledDeletion(id: number, inUnit: (unit: Unit, user: User) => Promise<void>): Promise<boolean> {
    return this.unitOfWork.run(async (unit) => {
      const users = this.users.in(unit)
      const pending = await users.findScheduledDeletion(id)
      if (!pending || !(await users.cancelScheduledDeletion(id))) return false
      await this.lifecycle.restored(unit, id, pending.deleted_at === null ? null : toIsoString(pending.deleted_at))
      const row = await users.findUserById(id)
      if (row) await inUnit(unit, await this.changed(unit, 'user.restored', toUser(row)))
      return true
    })
  }

  /** Ids of users whose grace period ended by `now`, but those in `skip`. */
  dueDeletions(now: string, limit: number, skip: readonly number[] = []): Promise<number[]> {
    return this.users.findDueDeletions(now, limit, skip)
  }

  /**
   * Removes for good a user whose grace period ended by `now`, once across processes (undefined
   * when another did, or the deletion was taken back): `beforeRemoving` runs first in the same
   * unit with the soft deletion's time (anonymising their posts); `user.removed` goes out.
   */
  purgeScheduled(id: number, now: string, beforeRemoving: (unit: Unit, deletedAt: string | null) => Promise<void>): Promise<User | undefined> {
    return this.removeForGood(id, async (unit) => {
      const pending = await this.users.in(unit).findScheduledDeletion(id)
      if (!pending || toIsoString(pending.due_at) > now) return false
      await beforeRemoving(unit, pending.deleted_at === null ? null : toIsoString(pending.deleted_at))
      return true
    })
  }

  /**
   * The account anonymised posts are moved to ("Deleted user"), made the first time it is needed.
   * It is the service's (users.kind, which no request sets), inactive and without a password, so
   * nothing signs in to it; whoever holds its address holds nothing of it.
   */
  async deletedAuthorId(): Promise<number> {
    const existing = await this.users.findServiceAccount('deleted_author')
    if (existing !== undefined) return existing
    try {
      return await this.unitOfWork.run(async (unit) => {
        const users = this.users.in(unit)
        let username = 'deleted_user'
        while (await users.usernameTaken(username)) username = `deleted_user_${randomInt(1_000_000)}`
        // An account made with the address before it was reserved keeps it: this one gets another.
        const email = (await users.emailTaken(DELETED_AUTHOR_EMAIL)) ? `deleted-user-${randomInt(1_000_000_000)}@users.invalid` : DELETED_AUTHOR_EMAIL
        return users.insertServiceAccount('deleted_author', { name: 'Deleted user', username, email, hashed_password: NO_PASSWORD, profile_image_url: DEFAULT_PROFILE_IMAGE_URL, age: null, is_superuser: false })
      })
    } catch (error) {
      // Another process made it at the same moment.
      if (uniqueViolation(error) === undefined) throw error
      return (await this.users.findServiceAccount('deleted_author')) ?? Promise.reject(error)
    }
  }

  /** Superusers only; finds soft-deleted users too. Their posts and tokens go with them. */
  async deletePermanently(actor: Actor, id: number, client: ClientInfo | null = null): Promise<void> {
    assertSuperuser(actor)
    if (!(await this.removeForGood(id))) userNotFound()
    await this.events.record('user_deleted_permanently', id, client)
  }

  /**
   * Removes a user's row, in any state, in one unit (`proceed`, first in it, may leave it; the
   * other features' `removing` may refuse it), `user.removed` with it; then their stored avatar.
   * The user as they were, or undefined when nothing was removed.
   */
  private async removeForGood(id: number, proceed: (unit: Unit) => Promise<boolean> = async () => true): Promise<User | undefined> {
    const removed = await this.unitOfWork.run(async (unit) => {
      const users = this.users.in(unit)
      const row = await users.findAnyUserById(id)
      if (!row || !(await proceed(unit))) return undefined
      await this.lifecycle.removing(unit, id)
      if (!(await users.deleteUserPermanently(id))) return undefined
      return this.changed(unit, 'user.removed', toUser(row))
    })
    if (removed) await this.avatars.remove(removed.avatarKey)
    return removed
  }

  async setAvatar(actor: Actor, id: number, upload: AvatarUpload): Promise<User> {
    assertSelfOrSuperuser(actor, id)
    const previous = await this.get(id)
    const stored = await this.avatars.store(upload)
    const updated = await this.updateRow(id, { profile_image_url: stored.url, avatar_key: stored.key })
    if (!updated) {
      // Deleted while uploading: do not leave an orphaned file behind.
      await this.avatars.remove(stored.key)
      userNotFound()
    }
    await this.avatars.remove(previous.avatarKey)
    return updated
  }

  /** What is wrong with a superuser's account as given (each field named as its caller knows it), or undefined. */
  accountProblem(account: AdminAccount, fieldNames: Record<keyof AdminAccount, string>): string | undefined {
    return adminAccountProblem(account, fieldNames)
  }

  /**
   * Makes sure the configured administrator exists and is a superuser. Idempotent: an account
   * (matched by email or username) that is already a superuser is left as it is, password and
   * all. One that is not is promoted only with `promoteExisting` (ADMIN_PROMOTE_EXISTING): whoever
   * registered the administrator's name first must not become a superuser silently.
   */
  async ensureSuperuser(account: AdminAccount, options: { promoteExisting: boolean }): Promise<SuperuserOutcome> {
    const existing = await this.users.findUserByEmailOrUsername(account.email, account.username)
    if (existing) return this.adopt(toUser(existing), account, options)
    try {
      // A breach list out of reach (a third party's outage) must not keep the service from starting:
      // the password is checked when the list answers, and let through (logged) when it does not.
      return { user: await this.create(account, { superuser: true, breachCheckWhenReachable: true }), outcome: 'created' }
    } catch (error) {
      // Another process may have created it at the same moment. Otherwise (a soft-deleted
      // account holds the email or username) the conflict stands.
      if (!(error instanceof DomainError && error.kind === 'conflict')) throw error
      const raced = await this.users.findUserByEmailOrUsername(account.email, account.username)
      if (!raced) throw error
      return this.adopt(toUser(raced), account, options)
    }
  }

  private async adopt(user: User, account: AdminAccount, options: { promoteExisting: boolean }): Promise<SuperuserOutcome> {
    if (user.isSuperuser) return { user, outcome: 'present' }
    if (!options.promoteExisting) {
      const matches = user.username === account.username ? `username "${account.username}"` : `email "${account.email}"`
      throw new DomainError(
        'conflict',
        `an existing account (#${user.id}, ${matches}) is not a superuser; set ADMIN_PROMOTE_EXISTING=true to promote it, or choose another administrator`,
      )
    }
    return { user: await this.promote(user), outcome: 'promoted' }
  }

  /** Changes a live user's row and publishes 'user.updated' with it, in one unit; undefined when there is no live user. */
  private updateRow(id: number, changes: Parameters<UsersRepository['updateUser']>[1], mergeFields?: (stored: User['storedFields']) => string): Promise<User | undefined> {
    return this.unitOfWork.run(async (unit) => {
      const users = this.users.in(unit)
      let merged = {}
      if (mergeFields) {
        // The row is held while the fields merge (findFieldsForChange), so no write between is lost.
        const stored = await users.findFieldsForChange(id)
        if (stored === undefined) return undefined
        merged = { fields: mergeFields(stored) }
      }
      const row = await users.updateUser(id, { ...changes, ...merged })
      return row && (await this.changed(unit, 'user.updated', toUser(row)))
    })
  }

  /** Records the change in its unit (its change event is written there) and gives the user back. */
  private async changed(unit: Unit, type: UserEventType, user: User): Promise<User> {
    await this.changes.userChanged(unit, type, user)
    return user
  }

  private async promote(user: User): Promise<User> {
    if (!user.isSuperuser) await this.users.setSuperuser(user.id)
    return { ...user, isSuperuser: true }
  }
}
