// `npm run backup -- <file>`: a consistent copy of the embedded database while the service keeps
// serving (SQLite's online backup API). PostgreSQL is backed up with pg_dump (docs/deploy.md).
import path from 'node:path'

import { loadConfigFromEnvironment } from '../config.js'
import { backupDatabase,BackupError } from '../db/sqlite-backup.js'

const [target] = process.argv.slice(2)
const config = loadConfigFromEnvironment()
try {
  if (target === undefined) throw new BackupError('usage: npm run backup -- <file>')
  if (config.databaseUrl !== undefined) throw new BackupError('npm run backup copies the embedded SQLite database; back up PostgreSQL with pg_dump (docs/deploy.md)')
  const result = await backupDatabase(config.dataDir, path.resolve(target))
  console.log(`backed up ${config.dataDir} to ${result.file} (${(result.bytes / 1024 / 1024).toFixed(1)} MiB, ${result.milliseconds} ms)`)
} catch (error) {
  console.error(`backup failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
}
