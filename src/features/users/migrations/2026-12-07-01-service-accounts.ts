import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import { isPostgres } from '../../../db/migrations/dialect.js'

// Accounts the service owns (the author anonymised posts keep) are marked by a kind no client can
// set, never by an address: `person` for everyone else. At most one account holds each service
// kind. The "Deleted user" the service made before (by its reserved address, inactive, without a
// password) becomes that account; one somebody signed up with that address stays a person.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('kind', 'varchar(20)', (col) => col.notNull().defaultTo('person')).execute()
  await sql`create unique index users_service_kind on users (kind) where kind <> 'person'`.execute(db)
  await db
    .updateTable('users')
    .set({ kind: 'deleted_author' })
    .where('id', '=', (eb: any) =>
      eb.selectFrom('users').select(eb.fn.min('id').as('id')).where('email', '=', 'deleted-user@users.invalid').where('hashed_password', '=', '!').where('is_active', '=', isPostgres(db) ? false : 0),
    )
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index users_service_kind`.execute(db)
  await db.schema.alterTable('users').dropColumn('kind').execute()
}
