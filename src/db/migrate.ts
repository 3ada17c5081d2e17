import type { Kysely, MigrationResultSet } from 'kysely'
import { Migrator } from 'kysely'

import { migrations } from './migrations/index.js'
import { withSchemaWrites } from './sqlite-schema-writes.js'

export class MigrationError extends Error {}

/** Runs every pending migration; concurrent callers are serialised by Kysely's migration lock. */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet['results']> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  const { error, results } = await withSchemaWrites(db, () => migrator.migrateToLatest())
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')
    throw new MigrationError(
      `migration ${failed?.migrationName ?? '(unknown)'} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
  return results
}

/** Runs migrations up or down to `target` (tests of a migration's backfill); the result set as Kysely gives it. */
export function migrateTo(db: Kysely<any>, target: string): Promise<MigrationResultSet> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  return withSchemaWrites(db, () => migrator.migrateTo(target))
}

/** The name of the newest migration this code has: a replica that has not replayed it is not read from. */
export function latestMigration(): string {
  return Object.keys(migrations).sort().at(-1)!
}
