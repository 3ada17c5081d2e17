import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres, now, timestampType } from '../../../db/migrations/dialect.js'

// The superusers' email domain lists, and three more per-day counts for the admin overview: CAPTCHA
// failures, breached passwords refused and blocked address domains, kept by triggers on the
// security events that record them (as sign-ups and logins are, 2026-11-22-04-admin-overview).
const COUNTED = { captcha_failures: 'captcha_failed', breached_passwords: 'password_breached_refused', blocked_domains: 'email_domain_blocked' }

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('email_domain_rules')
    .addColumn('domain', 'varchar(253)', (col) => col.primaryKey())
    .addColumn('action', 'varchar(5)', (col) => col.notNull())
    .addColumn('created_at', timestampType(db), (col) => col.notNull().defaultTo(now(db)))
    .execute()
  for (const [name, type] of Object.entries(COUNTED)) {
    if (isPostgres(db)) {
      await sql.raw(`
        create function daily_counts_${name}() returns trigger language plpgsql as $$
        begin
          insert into daily_counts (name, day, count)
            select '${name}', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD'), count(*) from new_rows where type = '${type}' group by 2
          on conflict (name, day) do update set count = daily_counts.count + excluded.count;
          return null;
        end $$;
        create trigger daily_counts_${name} after insert on security_events
          referencing new table as new_rows for each statement execute function daily_counts_${name}();
      `).execute(db)
    } else {
      await sql.raw(`create trigger daily_counts_${name} after insert on security_events when new.type = '${type}' begin
          insert into daily_counts (name, day, count) values ('${name}', substr(new.created_at, 1, 10), 1)
          on conflict (name, day) do update set count = count + 1;
        end`).execute(db)
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of Object.keys(COUNTED)) {
    await sql.raw(`drop trigger if exists daily_counts_${name}${isPostgres(db) ? ' on security_events' : ''}`).execute(db)
    if (isPostgres(db)) await sql.raw(`drop function if exists daily_counts_${name}()`).execute(db)
  }
  await db.schema.dropTable('email_domain_rules').execute()
}
