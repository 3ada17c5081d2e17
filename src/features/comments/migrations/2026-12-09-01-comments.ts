import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { idColumn, isPostgres, timestampType } from '../../../db/migrations/dialect.js'

// Comments on posts, and replies to them (one level: a reply names a top-level comment).
//
// - `comments.status`: visible, hidden (by a moderator, with `hidden_reason`), deleted (by its
//   author) or removed (by a superuser); the last two keep the row, with its text erased, so a
//   thread keeps its shape. `is_deleted` is apart: a comment hidden with its author's account
//   (and back with it when the deletion is taken back).
// - Counted, by triggers in the write's own transaction: `posts.comment_count` (the post's visible
//   comments and replies) and `comments.reply_count` (a comment's visible replies). A comment
//   counts while it is visible and not hidden with its author. A list page reads the counts from
//   the rows it reads anyway.
// - `posts.comments`: who may comment on the post (open, members, closed).
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await db.schema.alterTable('posts').addColumn('comments', 'varchar(7)', (col) => col.notNull().defaultTo('open')).execute()
  await db.schema.alterTable('posts').addColumn('comment_count', 'integer', (col) => col.notNull().defaultTo(0)).execute()
  await db.schema
    .createTable('comments')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('post_id', 'integer', (col) => col.notNull().references('posts.id').onDelete('cascade'))
    // Null once its author's account is removed for good: their words are erased first (the users
    // slice's removal calls the comments slice), and the row stays as a tombstone, so the replies
    // others wrote under it are not taken with it.
    .addColumn('author_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('parent_id', 'integer', (col) => col.references('comments.id').onDelete('cascade'))
    .addColumn('text', 'text', (col) => col.notNull())
    .addColumn('status', 'varchar(8)', (col) => col.notNull().defaultTo('visible'))
    .addColumn('hidden_reason', 'varchar(500)')
    .addColumn('moderated_by', 'integer')
    .addColumn('reply_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('is_deleted', postgres ? 'boolean' : 'integer', (col) => col.notNull().defaultTo(postgres ? false : 0))
    .addColumn('deleted_at', timestampType(db))
    .addColumn('edited_at', timestampType(db))
    .addColumn('created_at', timestampType(db), (col) => col.notNull())
    .addColumn('updated_at', timestampType(db), (col) => col.notNull())
    .execute()
  // A post's threads in either order, a comment's replies oldest first, an author's comments (their export, their deletion).
  await db.schema.createIndex('comments_post_threads_idx').on('comments').columns(['post_id', 'id']).where(sql.ref('parent_id'), 'is', null).execute()
  await db.schema.createIndex('comments_replies_idx').on('comments').columns(['parent_id', 'id']).where(sql.ref('parent_id'), 'is not', null).execute()
  await db.schema.createIndex('comments_author_idx').on('comments').columns(['author_id', 'id']).execute()

  if (postgres) {
    await sql.raw(`
      create function comment_counts_after_change() returns trigger language plpgsql as $$
      begin
        if TG_OP <> 'INSERT' and old.status = 'visible' and not old.is_deleted then
          update posts set comment_count = comment_count - 1 where id = old.post_id;
          if old.parent_id is not null then update comments set reply_count = reply_count - 1 where id = old.parent_id; end if;
        end if;
        if TG_OP <> 'DELETE' and new.status = 'visible' and not new.is_deleted then
          update posts set comment_count = comment_count + 1 where id = new.post_id;
          if new.parent_id is not null then update comments set reply_count = reply_count + 1 where id = new.parent_id; end if;
        end if;
        return null;
      end $$;
      create trigger comments_count_insert after insert on comments for each row execute function comment_counts_after_change();
      create trigger comments_count_delete after delete on comments for each row execute function comment_counts_after_change();
      create trigger comments_count_update after update of status, is_deleted on comments
        for each row when ((old.status = 'visible' and not old.is_deleted) is distinct from (new.status = 'visible' and not new.is_deleted))
        execute function comment_counts_after_change();
    `).execute(db)
    return
  }
  const counted = (row: 'new' | 'old') => `(${row}.status = 'visible' and ${row}.is_deleted = 0)`
  const move = (row: 'new' | 'old', delta: string) =>
    `update posts set comment_count = comment_count ${delta} where id = ${row}.post_id;
     update comments set reply_count = reply_count ${delta} where ${row}.parent_id is not null and id = ${row}.parent_id;`
  await sql.raw(`create trigger comments_count_insert after insert on comments when ${counted('new')} begin ${move('new', '+ 1')} end`).execute(db)
  await sql.raw(`create trigger comments_count_delete after delete on comments when ${counted('old')} begin ${move('old', '- 1')} end`).execute(db)
  await sql.raw(`create trigger comments_count_update_old after update of status, is_deleted on comments when ${counted('old')} and not ${counted('new')} begin ${move('old', '- 1')} end`).execute(db)
  await sql.raw(`create trigger comments_count_update_new after update of status, is_deleted on comments when ${counted('new')} and not ${counted('old')} begin ${move('new', '+ 1')} end`).execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  for (const suffix of postgres ? ['insert', 'delete', 'update'] : ['insert', 'delete', 'update_old', 'update_new']) {
    await sql.raw(`drop trigger if exists comments_count_${suffix}${postgres ? ' on comments' : ''}`).execute(db)
  }
  if (postgres) await sql.raw('drop function if exists comment_counts_after_change()').execute(db)
  await db.schema.dropTable('comments').execute()
  await db.schema.alterTable('posts').dropColumn('comment_count').execute()
  await db.schema.alterTable('posts').dropColumn('comments').execute()
}
