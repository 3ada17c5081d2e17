import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from './dialect.js'

// The admin overview shows sign-ups and logins per day over the last week. Counting them from
// the users and security_events rows costs a read of every row of the week (a million fresh
// sign-ups, a million logins); triggers keep per-day totals instead, so the overview reads at
// most fourteen rows. Existing rows are counted once here. Days are UTC, as YYYY-MM-DD text.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('daily_counts')
    .addColumn('name', 'varchar(32)', (col) => col.notNull())
    .addColumn('day', 'varchar(10)', (col) => col.notNull())
    .addColumn('count', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('daily_counts_pkey', ['name', 'day'])
    .execute()

  if (isPostgres(db)) {
    const day = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`
    await sql.raw(`
      insert into daily_counts (name, day, count) select 'sign_ups', ${day('created_at')}, count(*) from users group by 2;
      insert into daily_counts (name, day, count)
        select 'logins', ${day('created_at')}, count(*) from security_events where type = 'login_succeeded' group by 2;

      -- Per statement, over the inserted rows: a bulk insert adds to each day once.
      create function daily_counts_sign_ups() returns trigger language plpgsql as $$
      begin
        insert into daily_counts (name, day, count) select 'sign_ups', ${day('created_at')}, count(*) from new_rows group by 2
        on conflict (name, day) do update set count = daily_counts.count + excluded.count;
        return null;
      end $$;
      create function daily_counts_logins() returns trigger language plpgsql as $$
      begin
        insert into daily_counts (name, day, count)
          select 'logins', ${day('created_at')}, count(*) from new_rows where type = 'login_succeeded' group by 2
        on conflict (name, day) do update set count = daily_counts.count + excluded.count;
        return null;
      end $$;
      create trigger daily_counts_sign_ups after insert on users
        referencing new table as new_rows for each statement execute function daily_counts_sign_ups();
      create trigger daily_counts_logins after insert on security_events
        referencing new table as new_rows for each statement execute function daily_counts_logins();
    `).execute(db)
    return
  }

  await sql`insert into daily_counts (name, day, count) select 'sign_ups', substr(created_at, 1, 10), count(*) from users group by 2`.execute(db)
  await sql`insert into daily_counts (name, day, count)
    select 'logins', substr(created_at, 1, 10), count(*) from security_events where type = 'login_succeeded' group by 2`.execute(db)
  await sql`create trigger daily_counts_sign_ups after insert on users begin
      insert into daily_counts (name, day, count) values ('sign_ups', substr(new.created_at, 1, 10), 1)
      on conflict (name, day) do update set count = count + 1;
    end`.execute(db)
  await sql`create trigger daily_counts_logins after insert on security_events when new.type = 'login_succeeded' begin
      insert into daily_counts (name, day, count) values ('logins', substr(new.created_at, 1, 10), 1)
      on conflict (name, day) do update set count = count + 1;
    end`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`
      drop trigger if exists daily_counts_sign_ups on users;
      drop trigger if exists daily_counts_logins on security_events;
      drop function if exists daily_counts_sign_ups();
      drop function if exists daily_counts_logins();
    `).execute(db)
  } else {
    await sql`drop trigger if exists daily_counts_sign_ups`.execute(db)
    await sql`drop trigger if exists daily_counts_logins`.execute(db)
  }
  await db.schema.dropTable('daily_counts').execute()
}
