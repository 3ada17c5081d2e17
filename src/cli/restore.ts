// `npm run restore -- <file>`: puts a backup in place of the embedded database, once it passes
// PRAGMA integrity_check and holds no migration this version does not know, and only while no
// server uses DATA_DIR. The replaced database is kept beside it.
import path from 'node:path'

import { loadConfigFromEnvironment } from '../config.js'
import { BackupError, restoreDatabase } from '../db/sqlite-backup.js'

const [source] = process.argv.slice(2)
const config = loadConfigFromEnvironment()
try {
  if (source === undefined) throw new BackupError('usage: npm run restore -- <file>')
  if (config.databaseUrl !== undefined) throw new BackupError('npm run restore restores the embedded SQLite database; restore PostgreSQL with pg_restore (docs/deploy.md)')
  const { previous } = await restoreDatabase(config.dataDir, path.resolve(source))
  console.log(`restored ${path.resolve(source)} into ${config.dataDir}${previous ? `; the database it replaced is kept as ${previous}` : ''}`)
} catch (error) {
  console.error(`restore refused: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
}
