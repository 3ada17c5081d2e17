// Revisions' SQL (docs/api.md "Revisions"): the version of a post a change replaced, kept in the
// change's own transaction, the oldest beyond what is kept removed in the same one.
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { PostRevisionsTable } from './posts.table.js'

export type RevisionRow = Omit<PostRevisionsTable, 'id' | 'created_at'> & { id: number; created_at: Date | string }
export type NewRevisionRow = Omit<PostRevisionsTable, 'id' | 'created_at'>

const REVISION_COLUMNS = ['id', 'post_id', 'title', 'text', 'format', 'visibility', 'tags', 'language', 'attachments', 'replaced_by', 'created_at'] as const

/** Keeps the version, then removes the post's oldest beyond the newest `kept`: two statements, whatever is removed. */
export async function insertRevision(db: Executor, revision: NewRevisionRow, kept: number): Promise<void> {
  await db.insertInto('post_revisions').values({ ...revision, created_at: nowIso() }).execute()
  await db
    .deleteFrom('post_revisions')
    .where('post_id', '=', revision.post_id)
    .where('id', '<', (eb) => eb.selectFrom('post_revisions').select('id').where('post_id', '=', revision.post_id).orderBy('id', 'desc').offset(kept - 1).limit(1))
    .execute()
}

/** The post's revisions, newest first. */
export function listRevisions(db: Executor, postId: number, offset: number, limit: number): Promise<RevisionRow[]> {
  return db.selectFrom('post_revisions').select(REVISION_COLUMNS).where('post_id', '=', postId).orderBy('id', 'desc').limit(limit).offset(offset).execute()
}

export async function countRevisions(db: Executor, postId: number): Promise<number> {
  const { count } = await db.selectFrom('post_revisions').select((eb) => eb.fn.countAll<number | string>().as('count')).where('post_id', '=', postId).executeTakeFirstOrThrow()
  return Number(count)
}

export function findRevision(db: Executor, revisionId: number): Promise<RevisionRow | undefined> {
  return db.selectFrom('post_revisions').select(REVISION_COLUMNS).where('id', '=', revisionId).executeTakeFirst()
}

/** Every revision of the author's posts, by id (a data export), a batch at a time. */
export function revisionsOfAuthorAfter(db: Executor, authorId: number, after: number, limit: number): Promise<RevisionRow[]> {
  return db
    .selectFrom('post_revisions')
    .select(REVISION_COLUMNS.map((column) => `post_revisions.${column}` as const))
    .innerJoin('posts', 'posts.id', 'post_revisions.post_id')
    .where('posts.author_id', '=', authorId)
    .where('post_revisions.id', '>', after)
    .orderBy('post_revisions.id')
    .limit(limit)
    .execute()
}

export const postRevisionFunctions = { insertRevision, listRevisions, countRevisions, findRevision, revisionsOfAuthorAfter }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const postRevisionReadTargets: ReadTargets<typeof postRevisionFunctions> = {
  insertRevision: 'write',
  listRevisions: 'replica',
  countRevisions: 'replica',
  findRevision: 'replica',
  revisionsOfAuthorAfter: 'primary',
}

export type PostRevisionsRepository = Repository<typeof postRevisionFunctions>
