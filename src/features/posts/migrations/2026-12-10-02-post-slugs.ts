import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres, timestampType } from '../../../db/migrations/dialect.js'
import { slugFromTitle } from '../slugs.js'

// A post's address under its owner (docs/api.md, "Slugs"):
//
// - `posts.slug`, unique in `posts.slug_scope`: the scope its slug was given in, `o:<org id>` for
//   an organization's post and `u:<author id>` otherwise, written with the slug. A post keeps its
//   scope when its organization is deleted or its author's account is handed over, so neither can
//   make two slugs of one scope collide; the next slug given to it is given in its scope then.
//   Deleted posts keep theirs, so a restore never finds its address taken. Existing posts get a
//   slug from their title here, a later post with the same title in the same scope `-<id>` after.
// - `post_slug_redirects`: a post's earlier slugs in their scopes, so an old address still finds
//   the post. Gone with the post.
const BATCH = 500

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await db.schema.alterTable('posts').addColumn('slug', 'varchar(80)').execute()
  await db.schema.alterTable('posts').addColumn('slug_scope', 'varchar(24)').execute()
  for (let after = 0; ; ) {
    const rows = await db.selectFrom('posts').select(['id', 'title']).where('id', '>', after).orderBy('id').limit(BATCH).execute()
    if (rows.length === 0) break
    const cases = sql.join(rows.map((row) => sql`when ${row.id} then ${slugFromTitle(row.title as string)}`), sql` `)
    await sql`update posts set slug = case id ${cases} end where id in (${sql.join(rows.map((row) => row.id))})`.execute(db)
    after = rows.at(-1)!.id as number
  }
  await sql`update posts set slug_scope = case when org_id is null then 'u:' || author_id else 'o:' || org_id end`.execute(db)
  // The same title twice in one scope: every post after the first takes its id along.
  await sql`update posts set slug = slug || '-' || id where exists (
    select 1 from posts as earlier where earlier.slug_scope = posts.slug_scope and earlier.slug = posts.slug and earlier.id < posts.id)`.execute(db)
  await db.schema.createIndex('posts_slug_idx').unique().on('posts').columns(['slug_scope', 'slug']).execute()
  await db.schema
    .createTable('post_slug_redirects')
    .addColumn('slug_scope', 'varchar(24)', (col) => col.notNull())
    .addColumn('slug', 'varchar(80)', (col) => col.notNull())
    .addColumn('post_id', 'integer', (col) => col.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('created_at', timestampType(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('post_slug_redirects_pkey', ['slug_scope', 'slug'])
    .execute()
  await db.schema.createIndex('post_slug_redirects_post_idx').on('post_slug_redirects').column('post_id').execute()
  if (postgres) await sql`analyze posts`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('post_slug_redirects').execute()
  await db.schema.dropIndex('posts_slug_idx').execute()
  await db.schema.alterTable('posts').dropColumn('slug_scope').execute()
  await db.schema.alterTable('posts').dropColumn('slug').execute()
}
