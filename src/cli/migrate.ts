// `npm run migrate`: applies pending migrations to the configured database and exits.
import { loadConfigFromEnvironment } from '../config.js'
import { createDatabase } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'

const config = loadConfigFromEnvironment()
const database = await createDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
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
