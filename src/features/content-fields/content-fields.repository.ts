// What the records hold in their `fields` columns, counted by name: the report of stored fields
// (declared or not) that a superuser reads after changing CONTENT_SCHEMA. It reads only the
// `fields` column, which the posts, users and orgs slices keep for this slice's declarations
// (their migrations add it with addFieldsColumn), and nothing else of their tables.
import { sql } from 'kysely'

import { isPostgres } from '../../db/dialect.js'
import { readOffLoop } from '../../db/read-worker.js'
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'

/** The tables whose rows carry custom fields. */
export type FieldsTable = 'posts' | 'users' | 'organizations'

export interface StoredFieldRow {
  name: string
  records: number | string
}

/**
 * Each field name stored in the table, with how many rows hold it (soft-deleted ones too: their
 * values are kept). Reads every row: on SQLite off the event loop (src/db/read-worker.ts).
 */
export async function countStoredFields(db: Executor, table: FieldsTable): Promise<StoredFieldRow[]> {
  const keys = isPostgres(db) ? sql`jsonb_object_keys(${sql.ref(`${table}.fields`)})` : sql`json_each(${sql.ref(`${table}.fields`)})`
  const name = isPostgres(db) ? sql<string>`stored` : sql<string>`stored.key`
  const query = db
    .selectFrom([table, keys.as('stored')])
    .select([name.as('name'), (eb) => eb.fn.countAll<number | string>().as('records')])
    .groupBy(name)
    .orderBy(name)
  return readOffLoop(db, query) as Promise<StoredFieldRow[]>
}

export const contentFieldsFunctions = { countStoredFields }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const contentFieldsReadTargets: ReadTargets<typeof contentFieldsFunctions> = {
  countStoredFields: 'primary',
}

export type ContentFieldsRepository = Repository<typeof contentFieldsFunctions>
