// The data directory holds the database, its WAL, avatars, backups, mails and the signing key:
// none of it is for other local users. Everything the service creates there is owner-only, and
// what an older version left readable is made so at start.
import { chmodSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { isMainThread } from 'node:worker_threads'

export const PRIVATE_DIRECTORY_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/**
 * Creates `dataDir` owner-only and makes what is already in it owner-only. In the main thread
 * the process's umask becomes 077 too, so files other code creates (SQLite's WAL and shared
 * memory, backups elsewhere) are born private; worker threads cannot change it, and write with
 * explicit modes anyway.
 */
export function keepDataDirPrivate(dataDir: string): void {
  if (isMainThread) process.umask(0o077)
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE })
  restrict(dataDir)
}

function restrict(directory: string): void {
  chmodSync(directory, PRIVATE_DIRECTORY_MODE)
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name)
    if (entry.isDirectory()) restrict(full)
    else if (entry.isFile()) chmodSync(full, PRIVATE_FILE_MODE)
  }
}
