// `npm run rebuild-search-index`: writes every post's and comment's search index entry again
// (docs/api.md "Search"), a batch per transaction, while the service runs. Each entry is kept in
// its writes' own transaction; this is for after an upgrade that changes how text is indexed, or an
// index repaired by hand.
import { databaseOptions, migrate } from '../backends.js'
import { loadConfigFromEnvironment } from '../config.js'
import { createDatabase } from '../db/database.js'
import { createLogger } from '../logger.js'
import { createServices } from '../services.js'
import { loadOrCreateSecretKey } from '../shared/secret-key.js'

if (process.argv.length > 2) {
  console.error('usage: npm run rebuild-search-index')
  process.exit(2)
}
const config = loadConfigFromEnvironment()
const secretKey = config.secretKey ?? (await loadOrCreateSecretKey(config.dataDir)).key
const database = await createDatabase(databaseOptions(config))
try {
  await migrate(config, database)
  const services = createServices({ config, secretKey, database, redis: undefined, logger: createLogger('silent') })
  const posts = await services.posts.rebuildSearchIndex()
  const comments = await services.comments.rebuildSearchIndex()
  console.log(`search index written again for ${posts} posts and ${comments} comments`)
} catch (error) {
  console.error(`failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  await database.close()
}
