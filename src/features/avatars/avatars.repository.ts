import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'

export async function insertAvatar(db: Executor, name: string, contentType: string, data: Buffer): Promise<void> {
  await db.insertInto('avatars').values({ name, content_type: contentType, data, created_at: nowIso() }).execute()
}

export async function replaceAvatarData(db: Executor, name: string, data: Buffer): Promise<void> {
  await db.updateTable('avatars').set({ data }).where('name', '=', name).execute()
}

export async function findAvatar(db: Executor, name: string): Promise<{ content_type: string; data: Buffer } | undefined> {
  return db.selectFrom('avatars').select(['content_type', 'data']).where('name', '=', name).executeTakeFirst()
}

export async function deleteAvatar(db: Executor, name: string): Promise<void> {
  await db.deleteFrom('avatars').where('name', '=', name).execute()
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const avatarsFunctions = { insertAvatar, replaceAvatarData, findAvatar, deleteAvatar }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const avatarsReadTargets: ReadTargets<typeof avatarsFunctions> = {
  insertAvatar: 'write',
  replaceAvatarData: 'write',
  findAvatar: 'replica',
  deleteAvatar: 'write',
}

export type AvatarsRepository = Repository<typeof avatarsFunctions>
