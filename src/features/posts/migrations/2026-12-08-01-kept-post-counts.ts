import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../../db/migrations/dialect.js'

// Counts a list page reads instead of counting rows, kept by triggers in the write's own
// transaction (docs/performance.md, "Post lists"):
//
// - `org_post_counts`: the live posts of each organization by visibility and status. A member's
//   total adds what their organizations' grants open by reading a few of these rows, where
//   counting the posts read every index entry of their organizations' posts. Only posts that
//   belong to an organization touch it; a post taken out of one, into another, deleted or
//   restored moves its count with it. No foreign key: a deleted organization's rows are never
//   read again (ids are not reused: identity columns and AUTOINCREMENT).
// - `posts_author_grants_idx` (author_id, is_deleted, visibility, status, org_id): the caller's
//   own posts that no other grant opens are counted from the index alone, not their rows.
// - `posts.attachment_count`: the post's ready files. A page whose posts have none asks nothing of
//   the files table; a file attached, detached, made ready or removed moves it.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  const live = sql.lit(postgres ? false : 0)
  await db.schema
    .createTable('org_post_counts')
    .addColumn('org_id', 'integer', (col) => col.notNull())
    .addColumn('visibility', 'varchar(8)', (col) => col.notNull())
    .addColumn('status', 'varchar(9)', (col) => col.notNull())
    .addColumn('count', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('org_post_counts_pkey', ['org_id', 'visibility', 'status'])
    .execute()
  await sql`insert into org_post_counts (org_id, visibility, status, count)
    select org_id, visibility, status, count(*) from posts where org_id is not null and is_deleted = ${live}
    group by org_id, visibility, status`.execute(db)
  await db.schema.createIndex('posts_author_grants_idx').on('posts').columns(['author_id', 'is_deleted', 'visibility', 'status', 'org_id']).execute()
  await db.schema.alterTable('posts').addColumn('attachment_count', 'integer', (col) => col.notNull().defaultTo(0)).execute()
  await sql`update posts set attachment_count = (select count(*) from files where files.post_id = posts.id and files.status = 'ready')
    where id in (select post_id from files where post_id is not null and status = 'ready')`.execute(db)

  if (postgres) {
    await sql.raw(`
      create function org_post_counts_bump(org integer, post_visibility text, post_status text, delta integer) returns void language sql as $$
        insert into org_post_counts (org_id, visibility, status, count) values (org, post_visibility, post_status, delta)
        on conflict (org_id, visibility, status) do update set count = org_post_counts.count + excluded.count
      $$;
      create function org_post_counts_after_change() returns trigger language plpgsql as $$
      begin
        if TG_OP <> 'INSERT' and old.org_id is not null and not old.is_deleted then
          perform org_post_counts_bump(old.org_id, old.visibility, old.status, -1);
        end if;
        if TG_OP <> 'DELETE' and new.org_id is not null and not new.is_deleted then
          perform org_post_counts_bump(new.org_id, new.visibility, new.status, 1);
        end if;
        return null;
      end $$;
      create trigger posts_org_count_insert after insert on posts
        for each row when (new.org_id is not null) execute function org_post_counts_after_change();
      create trigger posts_org_count_delete after delete on posts
        for each row when (old.org_id is not null) execute function org_post_counts_after_change();
      create trigger posts_org_count_update after update of org_id, visibility, status, is_deleted on posts
        for each row when (old.org_id is not null or new.org_id is not null) execute function org_post_counts_after_change();

      create function post_attachment_counts_after_change() returns trigger language plpgsql as $$
      begin
        if TG_OP <> 'INSERT' and old.post_id is not null and old.status = 'ready' then
          update posts set attachment_count = attachment_count - 1 where id = old.post_id;
        end if;
        if TG_OP <> 'DELETE' and new.post_id is not null and new.status = 'ready' then
          update posts set attachment_count = attachment_count + 1 where id = new.post_id;
        end if;
        return null;
      end $$;
      create trigger files_attachment_count_insert after insert on files
        for each row when (new.post_id is not null) execute function post_attachment_counts_after_change();
      create trigger files_attachment_count_delete after delete on files
        for each row when (old.post_id is not null) execute function post_attachment_counts_after_change();
      create trigger files_attachment_count_update after update of post_id, status on files
        for each row when (old.post_id is not null or new.post_id is not null) execute function post_attachment_counts_after_change();
    `).execute(db)
    return
  }
  const bump = (row: 'new' | 'old', delta: string) => `insert into org_post_counts (org_id, visibility, status, count) values (${row}.org_id, ${row}.visibility, ${row}.status, ${delta})
      on conflict (org_id, visibility, status) do update set count = count + excluded.count;`
  const livePost = (row: 'new' | 'old') => `(${row}.org_id is not null and ${row}.is_deleted = 0)`
  await sql.raw(`create trigger posts_org_count_insert after insert on posts when ${livePost('new')} begin ${bump('new', '1')} end`).execute(db)
  await sql.raw(`create trigger posts_org_count_delete after delete on posts when ${livePost('old')} begin ${bump('old', '-1')} end`).execute(db)
  // Out of the old bucket, then into the new one (the same bucket: -1 and +1).
  await sql.raw(`create trigger posts_org_count_update_old after update of org_id, visibility, status, is_deleted on posts when ${livePost('old')} begin ${bump('old', '-1')} end`).execute(db)
  await sql.raw(`create trigger posts_org_count_update_new after update of org_id, visibility, status, is_deleted on posts when ${livePost('new')} begin ${bump('new', '1')} end`).execute(db)

  const attached = (row: 'new' | 'old') => `(${row}.post_id is not null and ${row}.status = 'ready')`
  const move = (row: 'new' | 'old', delta: string) => `update posts set attachment_count = attachment_count ${delta} where id = ${row}.post_id;`
  await sql.raw(`create trigger files_attachment_count_insert after insert on files when ${attached('new')} begin ${move('new', '+ 1')} end`).execute(db)
  await sql.raw(`create trigger files_attachment_count_delete after delete on files when ${attached('old')} begin ${move('old', '- 1')} end`).execute(db)
  await sql.raw(`create trigger files_attachment_count_update_old after update of post_id, status on files when ${attached('old')} begin ${move('old', '- 1')} end`).execute(db)
  await sql.raw(`create trigger files_attachment_count_update_new after update of post_id, status on files when ${attached('new')} begin ${move('new', '+ 1')} end`).execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  const on = (table: string) => (postgres ? ` on ${table}` : '')
  const rowTriggers = postgres ? ['insert', 'delete', 'update'] : ['insert', 'delete', 'update_old', 'update_new']
  for (const suffix of rowTriggers) {
    await sql.raw(`drop trigger if exists posts_org_count_${suffix}${on('posts')}`).execute(db)
    await sql.raw(`drop trigger if exists files_attachment_count_${suffix}${on('files')}`).execute(db)
  }
  if (postgres) {
    await sql
      .raw('drop function if exists org_post_counts_after_change(); drop function if exists org_post_counts_bump(integer, text, text, integer); drop function if exists post_attachment_counts_after_change()')
      .execute(db)
  }
  await db.schema.alterTable('posts').dropColumn('attachment_count').execute()
  await db.schema.dropIndex('posts_author_grants_idx').execute()
  await db.schema.dropTable('org_post_counts').execute()
}
