// Scheduled backups (BACKUP_INTERVAL_HOURS, BACKUP_KEEP) into DATA_DIR/backups: one process
// makes them (the only one, or the cluster's primary), and only the newest BACKUP_KEEP stay.
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'

import type { BackupConfig } from '../config.js'
import type { Logger } from '../logger.js'
import { backupDatabase } from './sqlite-backup.js'

const BACKUP_NAME = /^app-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.db$/

export const backupDirectory = (dataDir: string) => path.join(dataDir, 'backups')

/** Names sort by time: app-2026-11-22T22-30-00-000Z.db. */
const backupName = (now: Date) => `app-${now.toISOString().replace(/[:.]/g, '-')}.db`

function pruneBackups(directory: string, keep: number): void {
  const names = readdirSync(directory).filter((name) => BACKUP_NAME.test(name)).sort()
  for (const name of names.slice(0, Math.max(0, names.length - keep))) rmSync(path.join(directory, name), { force: true })
}

/** Starts the schedule; the first backup is one interval after the start. Returns how to stop it. */
export function scheduleBackups(dataDir: string, config: BackupConfig, logger: Logger): () => Promise<void> {
  const directory = backupDirectory(dataDir)
  mkdirSync(directory, { recursive: true, mode: 0o700 })
  let running: Promise<void> | undefined
  const run = async () => {
    try {
      const result = await backupDatabase(dataDir, path.join(directory, backupName(new Date())))
      pruneBackups(directory, config.keep)
      logger.info({ file: result.file, bytes: result.bytes, ms: result.milliseconds }, 'scheduled backup written')
    } catch (error) {
      logger.error({ err: error }, 'scheduled backup failed')
    }
  }
  const timer = setInterval(() => {
    // One at a time: a backup that outlasts the interval is not overtaken by the next.
    running ??= run().finally(() => {
      running = undefined
    })
  }, config.intervalMs)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await running
  }
}
