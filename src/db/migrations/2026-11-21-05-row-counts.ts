import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres, now } from './dialect.js'

// Exact, O(1) totals for the unfiltered lists: counting a million rows on every list request
// would cost more than the page itself. Triggers keep `row_counts` in step with the live
// (not soft-deleted) rows of users and posts. In PostgreSQL each table's count is spread over
// 16 shards, summed on read, so concurrent writers do not queue on one counter row; its
// triggers are per statement, so a bulk change updates a counter once.
//
// Also from here on, soft-deleting a user soft-deletes their posts in the same transaction,
// so a post is visible exactly when it is not soft-deleted; existing data is brought in line.
const SHARDS = 16
const COUNTED_TABLES = ['users', 'posts'] as const

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)

  await db
    .updateTable('posts')
    .set({ is_deleted: sql.lit(true), deleted_at: now(db) })
    .where('is_deleted', '=', sql.lit(false))
    .where('author_id', 'in', (eb: any) => eb.selectFrom('users').select('id').where('is_deleted', '=', sql.lit(true)))
    .execute()

  await db.schema
    .createTable('row_counts')
    .addColumn('name', 'varchar(32)', (col) => col.notNull())
    .addColumn('shard', 'integer', (col) => col.notNull())
    .addColumn('count', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('row_counts_pkey', ['name', 'shard'])
    .execute()
  for (const table of COUNTED_TABLES) {
    const shards = postgres ? SHARDS : 1
    for (let shard = 0; shard < shards; shard++) {
      await sql`insert into row_counts (name, shard, count) values (${table}, ${shard},
        ${shard === 0 ? sql`(select count(*) from ${sql.table(table)} where is_deleted = ${sql.lit(false)})` : sql`0`})`.execute(db)
    }
  }

  if (postgres) {
    await sql.raw(`
      create function row_counts_apply(table_name text, delta bigint) returns void language plpgsql as $$
      declare
        -- Drawn once: random() in the WHERE clause would be drawn again for every row.
        chosen integer := floor(random() * ${SHARDS})::int;
      begin
        if delta <> 0 then
          update row_counts set count = count + delta where name = table_name and shard = chosen;
        end if;
      end $$;

      create function row_counts_after_insert() returns trigger language plpgsql as $$
      begin
        perform row_counts_apply(TG_TABLE_NAME, (select count(*) from new_rows where not is_deleted));
        return null;
      end $$;

      create function row_counts_after_delete() returns trigger language plpgsql as $$
      begin
        perform row_counts_apply(TG_TABLE_NAME, -(select count(*) from old_rows where not is_deleted));
        return null;
      end $$;

      create function row_counts_after_update() returns trigger language plpgsql as $$
      begin
        perform row_counts_apply(TG_TABLE_NAME,
          (select count(*) from new_rows where not is_deleted) - (select count(*) from old_rows where not is_deleted));
        return null;
      end $$;
    `).execute(db)
    for (const table of COUNTED_TABLES) {
      await sql.raw(`
        create trigger ${table}_count_insert after insert on ${table}
          referencing new table as new_rows for each statement execute function row_counts_after_insert();
        create trigger ${table}_count_delete after delete on ${table}
          referencing old table as old_rows for each statement execute function row_counts_after_delete();
        create trigger ${table}_count_update after update on ${table}
          referencing old table as old_rows new table as new_rows for each statement execute function row_counts_after_update();
      `).execute(db)
    }
  } else {
    for (const table of COUNTED_TABLES) {
      const bump = (delta: string) => `update row_counts set count = count ${delta} where name = '${table}' and shard = 0;`
      await sql.raw(`create trigger ${table}_count_insert after insert on ${table} when new.is_deleted = 0
        begin ${bump('+ 1')} end`).execute(db)
      await sql.raw(`create trigger ${table}_count_delete after delete on ${table} when old.is_deleted = 0
        begin ${bump('- 1')} end`).execute(db)
      await sql.raw(`create trigger ${table}_count_soft_delete after update of is_deleted on ${table}
        when old.is_deleted <> new.is_deleted
        begin update row_counts set count = count + (case when new.is_deleted then -1 else 1 end)
          where name = '${table}' and shard = 0; end`).execute(db)
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of COUNTED_TABLES) {
    for (const suffix of ['insert', 'delete', 'update', 'soft_delete']) {
      await sql.raw(`drop trigger if exists ${table}_count_${suffix}${isPostgres(db) ? ` on ${table}` : ''}`).execute(db)
    }
  }
  if (isPostgres(db)) {
    await sql
      .raw(
        'drop function if exists row_counts_after_insert(); drop function if exists row_counts_after_delete(); ' +
          'drop function if exists row_counts_after_update(); drop function if exists row_counts_apply(text, bigint);',
      )
      .execute(db)
  }
  await db.schema.dropTable('row_counts').execute()
}
