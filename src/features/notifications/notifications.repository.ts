// The notifications slice's SQL. Who is mailed of a reply is read in the reply's own unit of work:
// the recipients' addresses from users (as a post's insert reads users), their settings, whether
// they blocked the one who replied (the blocks slice's user_blocks), and when they were last
// mailed of this post.
import { sql } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'

export async function settingsOf(db: Executor, userId: number): Promise<{ replyMail: boolean }> {
  const row = await db.selectFrom('notification_settings').select('reply_mail').where('user_id', '=', userId).executeTakeFirst()
  return { replyMail: row === undefined ? true : Boolean(row.reply_mail) }
}

export async function saveSettings(db: Executor, userId: number, settings: { replyMail: boolean }): Promise<void> {
  const replyMail = settings.replyMail ? 1 : 0
  await db.insertInto('notification_settings').values({ user_id: userId, reply_mail: replyMail }).onConflict((oc) => oc.column('user_id').doUpdateSet({ reply_mail: replyMail })).execute()
}

export interface ReplyRecipientRow {
  id: number
  name: string
  email: string
  locale: string | null
}

/**
 * Of these users, those to mail of a reply by `replierId` to `postId`: live, with reply mail on,
 * who did not block the replier, and not mailed of this post since `since`.
 */
export function replyRecipients(db: Executor, userIds: readonly number[], replierId: number, postId: number, since: string): Promise<ReplyRecipientRow[]> {
  return db
    .selectFrom('users')
    .leftJoin('notification_settings', 'notification_settings.user_id', 'users.id')
    .select(['users.id', 'users.name', 'users.email', 'users.locale'])
    .where('users.id', 'in', [...userIds])
    .where('users.is_deleted', '=', 0)
    .where((eb) => eb.or([eb('notification_settings.reply_mail', 'is', null), eb('notification_settings.reply_mail', '=', 1)]))
    .where(sql<boolean>`not exists (select 1 from user_blocks where user_blocks.blocker_id = users.id and user_blocks.blocked_id = ${replierId})`)
    .where(sql<boolean>`not exists (select 1 from reply_mails where reply_mails.user_id = users.id and reply_mails.post_id = ${postId} and reply_mails.mailed_at > ${since})`)
    .execute()
}

export async function nameOf(db: Executor, userId: number): Promise<string | undefined> {
  return (await db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirst())?.name
}

export async function markMailed(db: Executor, userId: number, postId: number, at: string): Promise<void> {
  await db.insertInto('reply_mails').values({ user_id: userId, post_id: postId, mailed_at: at }).onConflict((oc) => oc.columns(['user_id', 'post_id']).doUpdateSet({ mailed_at: at })).execute()
}

export const notificationsFunctions = { settingsOf, saveSettings, replyRecipients, nameOf, markMailed }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const notificationsReadTargets: ReadTargets<typeof notificationsFunctions> = {
  settingsOf: 'write',
  saveSettings: 'write',
  replyRecipients: 'primary',
  nameOf: 'primary',
  markMailed: 'write',
}

export type NotificationsRepository = Repository<typeof notificationsFunctions>
