// Online backups of the embedded database with SQLite's backup API, while the service keeps
// serving writes; checking a copy before it is restored; and the restore itself.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, copyFile, mkdir, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'

import type BetterSqlite3 from 'better-sqlite3'

import { serversUsing } from './data-dir-lock.js'
import { SQLITE_FILE_NAME } from './database.js'
import { migrations } from './migrations/index.js'
import SqliteDatabase from './sqlite-driver.js'

/** A backup or restore that must not go ahead; the message says why, for an operator. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BackupError'
  }
}

export interface BackupResult {
  file: string
  bytes: number
  milliseconds: number
}

/**
 * Copies the live database into `destination` (which must not exist) with the backup API. In
 * WAL mode the copy reads one consistent snapshot while writers go on: everything committed
 * before it began is in it. Written under a temporary name and renamed, so a half-written file
 * never carries the final name; checked before it is reported done.
 */
export async function backupDatabase(dataDir: string, destination: string): Promise<BackupResult> {
  const source = path.join(dataDir, SQLITE_FILE_NAME)
  if (!existsSync(source)) throw new BackupError(`there is no database at ${source}`)
  if (existsSync(destination)) throw new BackupError(`${destination} exists already; choose a new file name`)
  const started = Date.now()
  await mkdir(path.dirname(destination), { recursive: true, mode: 0o700 })
  const partial = `${destination}.partial-${randomBytes(4).toString('hex')}`
  const db = new SqliteDatabase(source, { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    // All remaining pages in each step: a step that another connection's write interrupts starts
    // over, and small steps under a steady stream of writes might never finish.
    await db.backup(partial, { progress: ({ remainingPages }) => Math.max(remainingPages, 100) })
  } catch (error) {
    await rm(partial, { force: true })
    throw error
  } finally {
    db.close()
  }
  try {
    // The copy inherits WAL mode; a backup is one self-contained file, so it leaves WAL behind.
    const copy = new SqliteDatabase(partial, { fileMustExist: true })
    copy.pragma('journal_mode = DELETE')
    copy.close()
    checkBackup(partial)
    // A copy of every account: owner-only, wherever it is written.
    await chmod(partial, 0o600)
    await rename(partial, destination)
  } catch (error) {
    await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${partial}${suffix}`, { force: true })))
    throw error
  }
  return { file: destination, bytes: (await stat(destination)).size, milliseconds: Date.now() - started }
}

/** Throws a BackupError unless `file` is a sound database of this service, with no migration newer than this version knows. */
export function checkBackup(file: string): void {
  if (!existsSync(file)) throw new BackupError(`${file} does not exist`)
  let db: BetterSqlite3.Database | undefined
  try {
    db = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
    const problems = (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check)
    if (problems.join() !== 'ok') throw new BackupError(`${file} failed the integrity check: ${problems.slice(0, 3).join('; ')}`)
    const hasMigrations = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get()
    if (!hasMigrations) throw new BackupError(`${file} is not a database of this service (it has no migration table)`)
    const applied = (db.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((row) => row.name)
    const unknown = applied.filter((name) => !(name in migrations))
    if (unknown.length > 0) throw new BackupError(`${file} was written by a newer version (unknown migrations: ${unknown.join(', ')})`)
  } catch (error) {
    if (error instanceof BackupError) throw error
    throw new BackupError(`${file} is not a usable SQLite database: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    db?.close()
  }
}

export interface RestoreResult {
  /** Where the database that was replaced now is (undefined when there was none). */
  previous: string | undefined
}

/**
 * Replaces DATA_DIR's database with a checked backup, while no server uses the directory. The
 * replaced database is kept beside it (app.db.before-restore-<time>), whole: its WAL is folded in first.
 */
export async function restoreDatabase(dataDir: string, backup: string): Promise<RestoreResult> {
  const holders = serversUsing(dataDir)
  if (holders.length > 0) throw new BackupError(`a server is using ${dataDir} (pid ${holders.join(', ')}); stop it before restoring`)
  checkBackup(backup)
  const live = path.join(dataDir, SQLITE_FILE_NAME)
  const incoming = `${live}.restoring`
  await copyFile(backup, incoming)
  let previous: string | undefined
  if (existsSync(live)) {
    const current = new SqliteDatabase(live, { fileMustExist: true })
    current.pragma('wal_checkpoint(TRUNCATE)')
    current.close()
    previous = `${live}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`
    await rename(live, previous)
  }
  await Promise.all(['-wal', '-shm'].map((suffix) => rm(`${live}${suffix}`, { force: true })))
  await rename(incoming, live)
  return { previous }
}
