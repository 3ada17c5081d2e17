import type { Kysely } from 'kysely'

// A user's language (a canonical BCP 47 tag), the one their mail is written in; null until they
// say or their browser does, and then the default language's mail goes out.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('locale', 'varchar(35)').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('locale').execute()
}
