// User rules: who may do what, uniqueness, soft and permanent deletion, avatars. No HTTP here;
// every operation serves every API version, which choose their own shapes.
import type { AdminAccount } from '../../config.js'
import { uniqueViolation } from '../../db/errors.js'
import type { Executor } from '../../db/schema.js'
import type { Actor } from '../../shared/actor.js'
import { DomainError, assertSuperuser, forbidden, notAuthenticated } from '../../shared/errors.js'
import { fetchPaged } from '../../shared/paging.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { PageRequest, Paged, RowWindow } from '../../shared/paging.js'
import type { PasswordHasher } from '../auth/passwords.js'
import { DEFAULT_PROFILE_IMAGE_URL } from '../avatars/avatars.service.js'
import type { AvatarService, AvatarUpload } from '../avatars/avatars.service.js'
import type { PostService } from '../posts/posts.service.js'
import type { ClientInfo } from '../security-events/security-event.js'
import type { SecurityEventService } from '../security-events/security-events.service.js'
import type { TierService } from '../tiers/tiers.service.js'
import { assertAcceptablePassword } from './password-policy.js'
import { toManagedUser, toUser } from './user.js'
import type { ManagedUser, NewUserInput, SignupPolicy, User, UserChanges, UserDirectoryQuery, UserSearchFilter } from './user.js'
import * as directory from './user-directory.repository.js'
import * as users from './users.repository.js'

/** Lists are in id order: the id is the key keyset paging continues after. */
const userKey = (row: { id: number }) => row.id

export const USER_NOT_FOUND = 'User not found'
export const EMAIL_TAKEN = 'Email is already registered'
export const USERNAME_TAKEN = 'Username not available'
export const USER_NOT_DELETED = 'User is not deleted'

function userNotFound(): never {
  throw new DomainError('not_found', USER_NOT_FOUND)
}

/** Maps a unique-index violation to the conflict the client should see; rethrows anything else. */
function conflictFrom(error: unknown): never {
  const constraint = uniqueViolation(error)
  if (constraint?.includes('email')) throw new DomainError('conflict', EMAIL_TAKEN)
  if (constraint?.includes('username')) throw new DomainError('conflict', USERNAME_TAKEN)
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

export class UserService {
  constructor(
    private readonly db: Executor,
    private readonly passwords: PasswordHasher,
    private readonly avatars: AvatarService,
    private readonly tiers: TierService,
    private readonly posts: PostService,
    private readonly events: SecurityEventService,
  ) {}

  /**
   * Called after a user's email changed (set by the composition root: the account module mails
   * the new address a verification link and the old one a notice).
   */
  onEmailChanged: (user: User, previousEmail: string) => Promise<void> = async () => {}

  async get(id: number): Promise<User> {
    return (await this.find(id)) ?? userNotFound()
  }

  /** A live user, or undefined. */
  async find(id: number): Promise<User | undefined> {
    const row = await users.findUserById(this.db, id)
    return row && toUser(row)
  }

  /** A live user whose login session `sessionId` is live too (the caller of a request), or undefined. */
  async findInSession(id: number, sessionId: string): Promise<User | undefined> {
    const row = await users.findUserInLiveSession(this.db, id, sessionId)
    return row && toUser(row)
  }

  /**
   * The live account a login name (username or email) names, as a stable identity: its id and
   * creation time (ids alone repeat across databases that share one Redis).
   */
  async findLoginAccount(login: string): Promise<{ id: number; identity: string } | undefined> {
    const row = await users.findLoginAccount(this.db, login)
    return row && { id: row.id, identity: `${row.id}@${toIsoString(row.created_at)}` }
  }

  /** The stored credentials of a live, active account, by username or email. */
  findCredentials(login: string): Promise<{ id: number; hashed_password: string } | undefined> {
    return users.findCredentials(this.db, login)
  }

  /** Ordered by id; `search`, when given, matches the name or username. */
  list(search: string | undefined, request: PageRequest): Promise<Paged<User>> {
    const rows = (window: RowWindow) => users.listUsers(this.db, window, search)
    return fetchPaged(request, { rows, count: () => users.countUsers(this.db, search), keyOf: userKey }, toUser)
  }

  /** Ordered by id. */
  search(filter: UserSearchFilter, request: PageRequest): Promise<Paged<User>> {
    const rows = (window: RowWindow) => users.searchUsers(this.db, filter, window)
    return fetchPaged(request, { rows, count: () => users.countSearchUsers(this.db, filter), keyOf: userKey }, toUser)
  }

  /** Users in any state, for superusers: searched, filtered by state, sorted by an indexed column. */
  directory(actor: Actor, query: UserDirectoryQuery, request: PageRequest): Promise<Paged<ManagedUser>> {
    assertSuperuser(actor)
    const rows = (window: RowWindow) => directory.listManagedUsers(this.db, query, window)
    return fetchPaged(request, { rows, count: () => directory.countManagedUsers(this.db, query), keyOf: userKey }, toManagedUser)
  }

  /** Any user, soft-deleted or not, for superusers. */
  async getManaged(actor: Actor, id: number): Promise<ManagedUser> {
    assertSuperuser(actor)
    const row = await directory.findManagedUser(this.db, id)
    return row ? toManagedUser(row) : userNotFound()
  }

  /** Superusers only; null removes the tier. */
  async setTier(actor: Actor, id: number, tierId: number | null): Promise<User> {
    assertSuperuser(actor)
    await this.get(id)
    if (tierId !== null) await this.tiers.get(tierId)
    if (!(await users.setUserTier(this.db, id, tierId))) userNotFound()
    return this.get(id)
  }

  /** Checks for a taken email, then username, before hashing; the unique indexes settle any race. */
  async create(input: NewUserInput, options: { superuser?: boolean } = {}): Promise<User> {
    assertAcceptablePassword(input.password, input)
    if (await users.emailTaken(this.db, input.email)) throw new DomainError('conflict', EMAIL_TAKEN)
    if (await users.usernameTaken(this.db, input.username)) throw new DomainError('conflict', USERNAME_TAKEN)
    const hashedPassword = await this.passwords.hash(input.password)
    try {
      const row = await users.insertUser(this.db, {
        name: input.name,
        username: input.username,
        email: input.email,
        hashed_password: hashedPassword,
        profile_image_url: DEFAULT_PROFILE_IMAGE_URL,
        age: input.age ?? null,
        is_superuser: options.superuser ?? false,
      })
      return toUser(row)
    } catch (error) {
      return conflictFrom(error)
    }
  }

  async update(actor: Actor, id: number, changes: UserChanges): Promise<User> {
    assertSelfOrSuperuser(actor, id)
    const current = await this.get(id)
    if (changes.email !== undefined && (await users.emailTaken(this.db, changes.email, id))) {
      throw new DomainError('conflict', EMAIL_TAKEN)
    }
    if (changes.username !== undefined && (await users.usernameTaken(this.db, changes.username, id))) {
      throw new DomainError('conflict', USERNAME_TAKEN)
    }
    const { profileImageUrl, ...columns } = changes
    // A client-written image URL is a link: it replaces the user's own upload, which is then deleted.
    const link = profileImageUrl === undefined ? {} : { profile_image_url: profileImageUrl, avatar_key: null }
    // A new address is unverified until its owner proves they read it.
    const emailChanged = changes.email !== undefined && changes.email.toLowerCase() !== current.email.toLowerCase()
    let row
    try {
      row = await users.updateUser(this.db, id, { ...columns, ...link, ...(emailChanged ? { is_verified: 0 as const } : {}) })
    } catch (error) {
      return conflictFrom(error)
    }
    if (!row) userNotFound()
    if (profileImageUrl !== undefined) await this.avatars.remove(current.avatarKey)
    const updated = toUser(row)
    if (emailChanged) await this.onEmailChanged(updated, current.email)
    return updated
  }

  /** A live, active user by email (password reset), or undefined. */
  async findActiveByEmail(email: string): Promise<User | undefined> {
    const row = await users.findActiveUserByEmail(this.db, email)
    return row && toUser(row)
  }

  async passwordMatches(id: number, password: string): Promise<boolean> {
    const hashed = await users.findHashedPassword(this.db, id)
    return hashed === undefined ? false : this.passwords.verify(hashed, password)
  }

  /** Sets a new password (after the same policy as at sign-up). */
  async setPassword(user: User, password: string): Promise<void> {
    assertAcceptablePassword(password, user)
    if (!(await users.setHashedPassword(this.db, user.id, await this.passwords.hash(password)))) userNotFound()
  }

  /** Marks the user verified if `email` is still their address. */
  markEmailVerified(id: number, email: string): Promise<boolean> {
    return users.markEmailVerified(this.db, id, email)
  }

  /** The user and their posts disappear together, in one transaction. */
  async softDelete(actor: Actor, id: number): Promise<void> {
    assertSelfOrSuperuser(actor, id)
    const deleted = await this.db.transaction().execute(async (trx) => {
      if (!(await users.softDeleteUser(trx, id))) return false
      await this.posts.hideAllOf(trx, id)
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
    await this.db.transaction().execute(async (trx) => {
      const deletedAt = await this.deletionOf(trx, id)
      if (!(await users.restoreUser(trx, id))) userNotFound()
      if (deletedAt !== null) await this.posts.unhideAllOf(trx, id, deletedAt)
    })
    return this.get(id)
  }

  /** What restore() would refuse, refused before anything else is done: superusers only, 404, 409. */
  async assertRestorable(actor: Actor, id: number): Promise<void> {
    assertSuperuser(actor)
    await this.deletionOf(this.db, id)
  }

  /** When a soft-deleted user was deleted; 404 without such a row, 409 for a live user. */
  private async deletionOf(db: Executor, id: number): Promise<string | null> {
    const deletion = await users.findDeletion(db, id)
    if (!deletion) userNotFound()
    if (!deletion.deleted) throw new DomainError('conflict', USER_NOT_DELETED)
    return deletion.deletedAt
  }

  /** Superusers only; finds soft-deleted users too. Their posts and tokens go with them. */
  async deletePermanently(actor: Actor, id: number, client: ClientInfo | null = null): Promise<void> {
    assertSuperuser(actor)
    const removed = await users.deleteUserPermanently(this.db, id)
    if (!removed) userNotFound()
    await this.events.record('user_deleted_permanently', id, client)
    await this.avatars.remove(removed.avatar_key)
  }

  async setAvatar(actor: Actor, id: number, upload: AvatarUpload): Promise<User> {
    assertSelfOrSuperuser(actor, id)
    const previous = await this.get(id)
    const stored = await this.avatars.store(upload)
    const updated = await users.updateUser(this.db, id, { profile_image_url: stored.url, avatar_key: stored.key })
    if (!updated) {
      // Deleted while uploading: do not leave an orphaned file behind.
      await this.avatars.remove(stored.key)
      userNotFound()
    }
    await this.avatars.remove(previous.avatarKey)
    return toUser(updated)
  }

  /**
   * Makes sure the configured administrator exists and is a superuser. Idempotent: an account
   * (matched by email or username) that is already a superuser is left as it is, password and
   * all. One that is not is promoted only with `promoteExisting` (ADMIN_PROMOTE_EXISTING): whoever
   * registered the administrator's name first must not become a superuser silently.
   */
  async ensureSuperuser(account: AdminAccount, options: { promoteExisting: boolean }): Promise<SuperuserOutcome> {
    const existing = await users.findUserByEmailOrUsername(this.db, account.email, account.username)
    if (existing) return this.adopt(toUser(existing), account, options)
    try {
      return { user: await this.create(account, { superuser: true }), outcome: 'created' }
    } catch (error) {
      // Another process may have created it at the same moment. Otherwise (a soft-deleted
      // account holds the email or username) the conflict stands.
      if (!(error instanceof DomainError && error.kind === 'conflict')) throw error
      const raced = await users.findUserByEmailOrUsername(this.db, account.email, account.username)
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

  private async promote(user: User): Promise<User> {
    if (!user.isSuperuser) await users.setSuperuser(this.db, user.id)
    return { ...user, isSuperuser: true }
  }
}
