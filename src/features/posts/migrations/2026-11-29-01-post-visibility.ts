import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres, timestampType } from '../../../db/migrations/dialect.js'

// Who may read a post (docs/api.md "Who reads a post"): its visibility, its status, and the
// organization it belongs to. Existing posts stay public and published (published when written).
//
// Indexes: (is_deleted, visibility, status, id) serves the listing most callers see, the public
// and published posts newest first, at any cursor depth; (org_id, id) an organization's posts
// newest first; (org_id, visibility, status, is_deleted, author_id), over the posts that belong to
// an organization only, counts what a member's grants open without reading a row. A caller's own
// drafts, private and unlisted posts are found through (author_id, id).
//
// `row_counts` gains `listed_posts`: the live, public and published posts, the total an anonymous
// list answers with in O(1), kept by triggers as the live totals are (2026-11-21-05-row-counts).
const SHARDS = 16
const LISTED = `not is_deleted and visibility = 'public' and status = 'published'`

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await db.schema.alterTable('posts').addColumn('visibility', 'varchar(8)', (col) => col.notNull().defaultTo('public')).execute()
  await db.schema.alterTable('posts').addColumn('status', 'varchar(9)', (col) => col.notNull().defaultTo('published')).execute()
  // An organization's deletion leaves its posts with their authors: `org` visibility without an organization reads as private.
  await db.schema.alterTable('posts').addColumn('org_id', 'integer', (col) => col.references('organizations.id').onDelete('set null')).execute()
  await db.schema.alterTable('posts').addColumn('published_at', timestampType(db)).execute()
  await db.updateTable('posts').set({ published_at: sql.ref('created_at') }).execute()
  await db.schema.createIndex('posts_listed_id_idx').on('posts').columns(['is_deleted', 'visibility', 'status', 'id']).execute()
  await db.schema.createIndex('posts_org_id_id_idx').on('posts').columns(['org_id', 'id']).execute()
  await db.schema
    .createIndex('posts_org_grants_idx')
    .on('posts')
    .columns(['org_id', 'visibility', 'status', 'is_deleted', 'author_id'])
    .where(sql.ref('org_id'), 'is not', null)
    .execute()

  // A superuser who reads or changes a post they could not read otherwise: the post named.
  await db.schema.alterTable('security_events').addColumn('post_id', 'integer').execute()

  for (let shard = 0; shard < (postgres ? SHARDS : 1); shard++) {
    await sql`insert into row_counts (name, shard, count) values ('listed_posts', ${shard},
      ${shard === 0 ? sql`(select count(*) from posts where ${sql.raw(postgres ? LISTED : LISTED.replace('not is_deleted', 'is_deleted = 0'))})` : sql`0`})`.execute(db)
  }
  if (postgres) {
    await sql.raw(`
      create function listed_posts_after_insert() returns trigger language plpgsql as $$
      begin
        perform row_counts_apply('listed_posts', (select count(*) from new_rows where ${LISTED}));
        return null;
      end $$;
      create function listed_posts_after_delete() returns trigger language plpgsql as $$
      begin
        perform row_counts_apply('listed_posts', -(select count(*) from old_rows where ${LISTED}));
        return null;
      end $$;
      create function listed_posts_after_update() returns trigger language plpgsql as $$
      begin
        perform row_counts_apply('listed_posts',
          (select count(*) from new_rows where ${LISTED}) - (select count(*) from old_rows where ${LISTED}));
        return null;
      end $$;
      create trigger posts_listed_count_insert after insert on posts
        referencing new table as new_rows for each statement execute function listed_posts_after_insert();
      create trigger posts_listed_count_delete after delete on posts
        referencing old table as old_rows for each statement execute function listed_posts_after_delete();
      create trigger posts_listed_count_update after update on posts
        referencing old table as old_rows new table as new_rows for each statement execute function listed_posts_after_update();
    `).execute(db)
  } else {
    const listed = (row: 'new' | 'old') => `(${row}.is_deleted = 0 and ${row}.visibility = 'public' and ${row}.status = 'published')`
    const bump = (delta: string) => `update row_counts set count = count ${delta} where name = 'listed_posts' and shard = 0;`
    await sql.raw(`create trigger posts_listed_count_insert after insert on posts when ${listed('new')} begin ${bump('+ 1')} end`).execute(db)
    await sql.raw(`create trigger posts_listed_count_delete after delete on posts when ${listed('old')} begin ${bump('- 1')} end`).execute(db)
    await sql.raw(`create trigger posts_listed_count_update after update of is_deleted, visibility, status on posts
      when ${listed('old')} <> ${listed('new')}
      begin update row_counts set count = count + (case when ${listed('new')} then 1 else -1 end)
        where name = 'listed_posts' and shard = 0; end`).execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  for (const suffix of ['insert', 'delete', 'update']) {
    await sql.raw(`drop trigger if exists posts_listed_count_${suffix}${postgres ? ' on posts' : ''}`).execute(db)
    if (postgres) await sql.raw(`drop function if exists listed_posts_after_${suffix}()`).execute(db)
  }
  await db.deleteFrom('row_counts').where('name', '=', 'listed_posts').execute()
  await db.schema.alterTable('security_events').dropColumn('post_id').execute()
  await db.schema.dropIndex('posts_org_grants_idx').execute()
  await db.schema.dropIndex('posts_org_id_id_idx').execute()
  await db.schema.dropIndex('posts_listed_id_idx').execute()
  for (const column of ['published_at', 'org_id', 'status', 'visibility']) await db.schema.alterTable('posts').dropColumn(column).execute()
}
