// The reading side of a ban: the moderation slice sets the users row's ban columns, and every way
// into an account asks here first. A ban whose time has passed is no ban; nothing has to lift it.
import { DomainError } from '../../shared/errors.js'
import type { User } from './user.js'
import { bannedUntilRead } from './user.js'

/** A ban as the users row keeps it: until when (BANNED_FOREVER for good), why, the owner's message, and who. */
export interface BanRow {
  until: string
  reason: string
  message: string | null
  by: number
}

const ACCOUNT_BANNED = 'This account is banned'

/** 403 `account_banned`: `detail` is the ban's public message when it has one; `banned_until` a time or "forever". */
export const accountBanned = (publicMessage: string | null, bannedUntil: string | null) =>
  new DomainError('forbidden', publicMessage ?? ACCOUNT_BANNED, { code: 'account_banned', fields: { banned_until: bannedUntil } })

/**
 * 403 `account_pending_deletion`: the password was right, but the owner asked to delete the
 * account and its grace period runs until `deletionDueAt`; the only way on is taking it back.
 */
export const accountPendingDeletion = (deletionDueAt: string) =>
  new DomainError('forbidden', `This account is scheduled for deletion on ${deletionDueAt}. To keep it, POST /api/v2/users/me/deletion/cancel with the link's token, or with your login and password`, {
    code: 'account_pending_deletion',
    fields: { deletion_due_at: deletionDueAt },
  })

/** The refusal for a banned user, with their ban's public message; undefined when they are not banned. */
export async function banRefusal(user: User, publicMessageOf: (userId: number) => Promise<string | null>): Promise<DomainError | undefined> {
  const until = bannedUntilRead(user)
  if (until === null) return undefined
  return accountBanned(await publicMessageOf(user.id), until)
}
