import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres, timestampType } from '../../../db/migrations/dialect.js'

// Reactions on posts and comments (one of the REACTIONS kinds, once per user, kind and target),
// and their counts, kept by triggers in the write's own transaction, so they are exact however
// many react at once (each count is one row, changed under its lock):
//
// - `post_reaction_counts`, `comment_reaction_counts`: a target's reactions by kind.
// - `posts.reaction_count`, `comments.reaction_count`: all of a target's reactions. A page whose
//   posts have none asks nothing of the counts.
//
// - `post_reaction_changes`: the posts whose reactions changed since the last `post.reactions_changed`
//   event, one row each however many reactions came (the event is coalesced): the reactions job turns
//   them into events. No foreign key: a post gone meanwhile is skipped.
//
// Each table has its target's foreign key: a target removed for good takes its reactions and
// counts with it (a count's trigger then updates a row that is gone, which changes nothing).
/** SQLite's trigger statement that marks the post's reactions changed. */
const changed = (row: 'new' | 'old') => `insert into post_reaction_changes (post_id, changed_at) values (${row}.post_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) on conflict (post_id) do nothing;`

const TARGETS = [
  { target: 'post', table: 'posts', column: 'post_id' },
  { target: 'comment', table: 'comments', column: 'comment_id' },
] as const

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await db.schema
    .createTable('post_reaction_changes')
    .addColumn('post_id', 'integer', (col) => col.primaryKey())
    .addColumn('changed_at', timestampType(db), (col) => col.notNull())
    .execute()
  for (const { target, table, column } of TARGETS) {
    await db.schema.alterTable(table).addColumn('reaction_count', 'integer', (col) => col.notNull().defaultTo(0)).execute()
    await db.schema
      .createTable(`${target}_reactions`)
      .addColumn(column, 'integer', (col) => col.notNull().references(`${table}.id`).onDelete('cascade'))
      .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
      .addColumn('kind', 'varchar(20)', (col) => col.notNull())
      .addColumn('created_at', timestampType(db), (col) => col.notNull())
      .addPrimaryKeyConstraint(`${target}_reactions_pkey`, [column, 'user_id', 'kind'])
      .execute()
    // A user's own reactions on a page of targets, and everything of theirs (their export, their removal).
    await db.schema.createIndex(`${target}_reactions_user_idx`).on(`${target}_reactions`).columns(['user_id', column]).execute()
    await db.schema
      .createTable(`${target}_reaction_counts`)
      .addColumn(column, 'integer', (col) => col.notNull().references(`${table}.id`).onDelete('cascade'))
      .addColumn('kind', 'varchar(20)', (col) => col.notNull())
      .addColumn('count', 'integer', (col) => col.notNull())
      .addPrimaryKeyConstraint(`${target}_reaction_counts_pkey`, [column, 'kind'])
      .execute()

    if (postgres) {
      await sql.raw(`
        create function ${target}_reaction_counts_after_change() returns trigger language plpgsql as $$
        begin
          if TG_OP = 'INSERT' then
            insert into ${target}_reaction_counts (${column}, kind, count) values (new.${column}, new.kind, 1)
              on conflict (${column}, kind) do update set count = ${target}_reaction_counts.count + 1;
            update ${table} set reaction_count = reaction_count + 1 where id = new.${column};
            ${target === 'post' ? "insert into post_reaction_changes (post_id, changed_at) values (new.post_id, now()) on conflict (post_id) do nothing;" : ''}
          else
            update ${target}_reaction_counts set count = count - 1 where ${column} = old.${column} and kind = old.kind;
            update ${table} set reaction_count = reaction_count - 1 where id = old.${column};
            ${target === 'post' ? "insert into post_reaction_changes (post_id, changed_at) values (old.post_id, now()) on conflict (post_id) do nothing;" : ''}
          end if;
          return null;
        end $$;
        create trigger ${target}_reactions_count_insert after insert on ${target}_reactions for each row execute function ${target}_reaction_counts_after_change();
        create trigger ${target}_reactions_count_delete after delete on ${target}_reactions for each row execute function ${target}_reaction_counts_after_change();
      `).execute(db)
      continue
    }
    await sql.raw(`create trigger ${target}_reactions_count_insert after insert on ${target}_reactions begin
      insert into ${target}_reaction_counts (${column}, kind, count) values (new.${column}, new.kind, 1)
        on conflict (${column}, kind) do update set count = count + 1;
      update ${table} set reaction_count = reaction_count + 1 where id = new.${column};
      ${target === 'post' ? changed('new') : ''}
    end`).execute(db)
    await sql.raw(`create trigger ${target}_reactions_count_delete after delete on ${target}_reactions begin
      update ${target}_reaction_counts set count = count - 1 where ${column} = old.${column} and kind = old.kind;
      update ${table} set reaction_count = reaction_count - 1 where id = old.${column};
      ${target === 'post' ? changed('old') : ''}
    end`).execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  for (const { target, table } of TARGETS) {
    for (const suffix of ['insert', 'delete']) await sql.raw(`drop trigger if exists ${target}_reactions_count_${suffix}${postgres ? ` on ${target}_reactions` : ''}`).execute(db)
    if (postgres) await sql.raw(`drop function if exists ${target}_reaction_counts_after_change()`).execute(db)
    await db.schema.dropTable(`${target}_reaction_counts`).execute()
    await db.schema.dropTable(`${target}_reactions`).execute()
    await db.schema.alterTable(table).dropColumn('reaction_count').execute()
  }
  await db.schema.dropTable('post_reaction_changes').execute()
}
