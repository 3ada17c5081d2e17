// User rules: who may do what, uniqueness, soft and permanent deletion, avatars. No HTTP here.
import type { AdminAccount } from '../../config.js'
import type { Executor } from '../../db/schema.js'
import { uniqueViolation } from '../../db/errors.js'
import { DomainError, forbidden } from '../../shared/errors.js'
import { fetchPage } from '../../shared/pagination.js'
import type { Page } from '../../shared/pagination.js'
import type { PasswordHasher } from '../auth/passwords.js'
import { DEFAULT_PROFILE_IMAGE_URL } from '../avatars/avatars.service.js'
import type { AvatarService, AvatarUpload } from '../avatars/avatars.service.js'
import type { TierService } from '../tiers/tiers.service.js'
import { hidePostsOf } from '../posts/posts.repository.js'
import * as users from './users.repository.js'
import type { UserChanges, UserRecord } from './users.repository.js'

export const USER_NOT_FOUND = 'User not found'
export const EMAIL_TAKEN = 'Email is already registered'
export const USERNAME_TAKEN = 'Username not available'
export const SEARCH_RESULT_LIMIT = 100

/** Whoever is acting: the authenticated caller. */
export interface Actor {
  id: number
  is_superuser: boolean
}

export interface CreateUserInput {
  name: string
  username: string
  email: string
  password: string
  age?: number | null
}

export interface UserSearchInput {
  name?: string
  age?: number
  isActive: boolean
  /** Matches name or username. */
  text?: string
}

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
  if (actor.id !== userId && !actor.is_superuser) throw forbidden()
}

export class UserService {
  constructor(
    private readonly db: Executor,
    private readonly passwords: PasswordHasher,
    private readonly avatars: AvatarService,
    private readonly tiers: TierService,
  ) {}

  async get(id: number): Promise<UserRecord> {
    return (await users.findUserById(this.db, id)) ?? userNotFound()
  }

  /** `search`, when given, matches the name or username. */
  list(page: number, itemsPerPage: number, search?: string): Promise<Page<UserRecord>> {
    return fetchPage(
      page,
      itemsPerPage,
      (offset, limit) => users.listUsers(this.db, offset, limit, search),
      () => users.countUsers(this.db, search),
    )
  }

  /** The first SEARCH_RESULT_LIMIT matches, ordered by id. */
  search(input: UserSearchInput): Promise<UserRecord[]> {
    return users.searchUsers(this.db, input, 0, SEARCH_RESULT_LIMIT)
  }

  searchPage(input: UserSearchInput, page: number, itemsPerPage: number): Promise<Page<UserRecord>> {
    return fetchPage(
      page,
      itemsPerPage,
      (offset, limit) => users.searchUsers(this.db, input, offset, limit),
      () => users.countSearchUsers(this.db, input),
    )
  }

  /** Superusers only. `tier` is an id (v1) or a name (v2); null removes the tier. */
  async setTier(actor: Actor, id: number, tier: number | string | null): Promise<UserRecord> {
    if (!actor.is_superuser) throw forbidden()
    await this.get(id)
    const tierId = tier === null ? null : (await this.tiers.resolve(tier)).id
    if (!(await users.setUserTier(this.db, id, tierId))) userNotFound()
    return this.get(id)
  }

  /** Checks for a taken email, then username, before hashing; the unique indexes settle any race. */
  async create(input: CreateUserInput, options: { superuser?: boolean } = {}): Promise<UserRecord> {
    if (await users.emailTaken(this.db, input.email)) throw new DomainError('conflict', EMAIL_TAKEN)
    if (await users.usernameTaken(this.db, input.username)) throw new DomainError('conflict', USERNAME_TAKEN)
    const hashedPassword = await this.passwords.hash(input.password)
    try {
      return await users.insertUser(this.db, {
        name: input.name,
        username: input.username,
        email: input.email,
        hashed_password: hashedPassword,
        profile_image_url: DEFAULT_PROFILE_IMAGE_URL,
        age: input.age ?? null,
        is_superuser: options.superuser ?? false,
      })
    } catch (error) {
      return conflictFrom(error)
    }
  }

  async update(actor: Actor, id: number, changes: UserChanges): Promise<UserRecord> {
    assertSelfOrSuperuser(actor, id)
    await this.get(id)
    if (changes.email !== undefined && (await users.emailTaken(this.db, changes.email, id))) {
      throw new DomainError('conflict', EMAIL_TAKEN)
    }
    if (changes.username !== undefined && (await users.usernameTaken(this.db, changes.username, id))) {
      throw new DomainError('conflict', USERNAME_TAKEN)
    }
    try {
      return (await users.updateUser(this.db, id, changes)) ?? userNotFound()
    } catch (error) {
      return conflictFrom(error)
    }
  }

  /** The user and their posts disappear together, in one transaction. */
  async softDelete(actor: Actor, id: number): Promise<void> {
    assertSelfOrSuperuser(actor, id)
    const deleted = await this.db.transaction().execute(async (trx) => {
      if (!(await users.softDeleteUser(trx, id))) return false
      await hidePostsOf(trx, id)
      return true
    })
    if (!deleted) userNotFound()
  }

  /** Superusers only; finds soft-deleted users too. Their posts and tokens go with them. */
  async deletePermanently(actor: Actor, id: number): Promise<void> {
    if (!actor.is_superuser) throw forbidden()
    const removed = await users.deleteUserPermanently(this.db, id)
    if (!removed) userNotFound()
    await this.avatars.removeByUrl(removed.profile_image_url)
  }

  async setAvatar(actor: Actor, id: number, upload: AvatarUpload): Promise<UserRecord> {
    assertSelfOrSuperuser(actor, id)
    const previous = await this.get(id)
    const url = await this.avatars.store(upload)
    const updated = await users.updateUser(this.db, id, { profile_image_url: url })
    if (!updated) {
      // Deleted while uploading: do not leave an orphaned file behind.
      await this.avatars.removeByUrl(url)
      userNotFound()
    }
    await this.avatars.removeByUrl(previous.profile_image_url)
    return updated
  }

  /**
   * Makes sure the configured administrator exists and is a superuser. Idempotent: an existing
   * account (matched by email or username) is promoted, and its password is left alone.
   */
  async ensureSuperuser(account: AdminAccount): Promise<{ user: UserRecord; created: boolean }> {
    const existing = await users.findUserByEmailOrUsername(this.db, account.email, account.username)
    if (existing) return { user: await this.promote(existing), created: false }
    try {
      return { user: await this.create(account, { superuser: true }), created: true }
    } catch (error) {
      // Another process may have created it at the same moment: promote what it made. Otherwise
      // (a soft-deleted account holds the email or username) the conflict stands.
      if (!(error instanceof DomainError && error.kind === 'conflict')) throw error
      const raced = await users.findUserByEmailOrUsername(this.db, account.email, account.username)
      if (!raced) throw error
      return { user: await this.promote(raced), created: false }
    }
  }

  private async promote(user: UserRecord): Promise<UserRecord> {
    if (!user.is_superuser) await users.setSuperuser(this.db, user.id)
    return { ...user, is_superuser: true }
  }
}
