// `npm run rotate-signing-key [-- --drop-old]`: makes a new key for signing access tokens
// (JWT_ALGORITHM EdDSA, ES256 or RS256, kept in the database) and retires the others. Every
// process signs with the new one within a minute; a retired key stays published at
// /.well-known/jwks.json, and accepted, until the tokens it signed have expired. --drop-old
// (a key that leaked) deletes the others instead: every process refuses their tokens within a
// minute. With JWT_PRIVATE_KEY set there is nothing to rotate
// here: set a new key, and move the old one to JWT_PRIVATE_KEY_PREVIOUS for ACCESS_TOKEN_MINUTES.
import { databaseOptions, migrate } from '../backends.js'
import { loadConfigFromEnvironment } from '../config.js'
import { createDatabase } from '../db/database.js'
import { createLogger } from '../logger.js'
import { createServices } from '../services.js'
import { loadOrCreateSecretKey } from '../shared/secret-key.js'

const args = process.argv.slice(2)
if (args.some((arg) => arg !== '--drop-old')) {
  console.error('usage: npm run rotate-signing-key [-- --drop-old]')
  process.exit(2)
}
const dropOld = args.includes('--drop-old')
const config = loadConfigFromEnvironment()
if (config.jwt.algorithm === 'HS256') {
  console.error('JWT_ALGORITHM=HS256 signs with SECRET_KEY: rotate it with SECRET_KEY_PREVIOUS (docs/deploy.md)')
  process.exit(2)
}
if (config.jwt.privateKey !== undefined) {
  console.error('JWT_PRIVATE_KEY is set: set a new one and move the old one to JWT_PRIVATE_KEY_PREVIOUS until its tokens expire (docs/deploy.md)')
  process.exit(2)
}
// The key is sealed under SECRET_KEY, as the server would (in development, the one in DATA_DIR).
const secretKey = config.secretKey ?? (await loadOrCreateSecretKey(config.dataDir)).key
const database = await createDatabase(databaseOptions(config))
try {
  await migrate(config, database)
  const services = createServices({ config, secretKey, database, redis: undefined, logger: createLogger('silent') })
  const kid = await services.signingKeys!.rotate({ dropOthers: dropOld })
  const earlier = dropOld ? 'the earlier ones are deleted: their tokens are refused within a minute' : 'the earlier ones stay published until their tokens expire'
  console.log(`signing key ${kid} (${config.jwt.algorithm}) signs from now on; ${earlier}`)
} catch (error) {
  console.error(`failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
} finally {
  await database.close()
}
