import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../../db/migrations/dialect.js'

// The total of a page of a post's threads without counting them (a post with a million comments
// read as fast as one with ten):
//
// - `posts.thread_count`, kept by triggers in the write's own transaction: the post's top-level
//   comments that everyone who reads the post sees in its threads, a visible one or a tombstone
//   that replies hang under (`reply_count`, itself kept by the counting triggers, going above 0
//   makes the tombstone count).
// - `comments_hidden_idx`: what a viewer sees besides (the hidden comments they wrote, or every
//   hidden one for the post's moderators) is counted through it: a post's hidden comments are few.
//
// A viewer's total is the kept count, plus the hidden comments they see, minus the comments of
// the authors they block (comments.repository.ts threadTotal).
const SHOWN = (row: string, postgres: boolean) =>
  `(${row}.parent_id is null and ((${row}.status = 'visible' and ${postgres ? `not ${row}.is_deleted` : `${row}.is_deleted = 0`}) or ${row}.reply_count > 0))`

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await db.schema.alterTable('posts').addColumn('thread_count', 'integer', (col) => col.notNull().defaultTo(0)).execute()
  await db.schema.createIndex('comments_hidden_idx').on('comments').columns(['post_id', 'parent_id']).where(sql.ref('status'), '=', sql.lit('hidden')).execute()
  await sql
    .raw(
      `update posts set thread_count = (select count(*) from comments where comments.post_id = posts.id and ${SHOWN('comments', postgres)})
       where exists (select 1 from comments where comments.post_id = posts.id)`,
    )
    .execute(db)
  const move = (row: 'new' | 'old', delta: string) => `update posts set thread_count = thread_count ${delta} where id = ${row}.post_id;`
  const watched = 'after update of status, is_deleted, reply_count on comments'
  if (postgres) {
    await sql.raw(`
      create function comment_threads_after_change() returns trigger language plpgsql as $$
      declare
        was_shown boolean := TG_OP <> 'INSERT' and ${SHOWN('old', true)};
        now_shown boolean := TG_OP <> 'DELETE' and ${SHOWN('new', true)};
      begin
        if was_shown and not now_shown then ${move('old', '- 1')}
        elsif now_shown and not was_shown then ${move('new', '+ 1')}
        end if;
        return null;
      end $$;
      create trigger comments_threads_insert after insert on comments for each row when (new.parent_id is null) execute function comment_threads_after_change();
      create trigger comments_threads_delete after delete on comments for each row when (old.parent_id is null) execute function comment_threads_after_change();
      create trigger comments_threads_update ${watched} for each row when (old.parent_id is null) execute function comment_threads_after_change();
    `).execute(db)
    return
  }
  const shown = (row: 'new' | 'old') => SHOWN(row, false)
  await sql.raw(`create trigger comments_threads_insert after insert on comments when ${shown('new')} begin ${move('new', '+ 1')} end`).execute(db)
  await sql.raw(`create trigger comments_threads_delete after delete on comments when ${shown('old')} begin ${move('old', '- 1')} end`).execute(db)
  await sql.raw(`create trigger comments_threads_update_old ${watched} when ${shown('old')} and not ${shown('new')} begin ${move('old', '- 1')} end`).execute(db)
  await sql.raw(`create trigger comments_threads_update_new ${watched} when ${shown('new')} and not ${shown('old')} begin ${move('new', '+ 1')} end`).execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  for (const suffix of postgres ? ['insert', 'delete', 'update'] : ['insert', 'delete', 'update_old', 'update_new']) {
    await sql.raw(`drop trigger if exists comments_threads_${suffix}${postgres ? ' on comments' : ''}`).execute(db)
  }
  if (postgres) await sql.raw('drop function if exists comment_threads_after_change()').execute(db)
  await db.schema.dropIndex('comments_hidden_idx').execute()
  await db.schema.alterTable('posts').dropColumn('thread_count').execute()
}
