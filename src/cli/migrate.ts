// `npm run migrate`: applies pending migrations to the configured database and exits.
import { databaseOptions } from '../backends.js'
import { loadConfigFromEnvironment } from '../config.js'
import { createDatabase } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'

const config = loadConfigFromEnvironment()
// Over DATABASE_DIRECT_URL when set: DDL need not go through a pooler.
const database = await createDatabase(databaseOptions(config, true))
try {
  const results = await migrateToLatest(database.db)
  for (const result of results ?? []) console.log(`${result.status === 'Success' ? 'applied' : result.status}: ${result.migrationName}`)
  console.log(results?.length ? `database at ${database.location} is up to date` : `nothing to apply at ${database.location}`)
} catch (error) {
  console.error(`migration failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  await database.close()
}
