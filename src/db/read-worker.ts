// Reads that may scan a large table (a search for a text too short for the trigram index) run on
// SQLite's own connection in a worker thread: better-sqlite3 is synchronous, so on the main
// thread such a scan would hold every other request until it ends. WAL lets the worker read
// beside the writer; it reads committed rows only, which is what a read outside a transaction
// sees anyway. PostgreSQL runs queries off the event loop already, and there, and inside a
// transaction, `readOffLoop` simply runs the query.
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

import type { Compilable, Kysely } from 'kysely'

import { sqliteDriverPackage } from './sqlite-driver.js'

// Plain JavaScript, evaluated in the worker: it must not depend on how this file is loaded
// (compiled, or TypeScript under the test runner).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driverPath)
const db = new Database(workerData.file, { readonly: true, fileMustExist: true })
db.pragma('busy_timeout = 1000')
const statements = new Map()
parentPort.on('message', ({ id, sql, parameters }) => {
  try {
    let statement = statements.get(sql)
    if (statement === undefined) {
      if (statements.size >= 100) statements.clear()
      statement = db.prepare(sql)
      statements.set(sql, statement)
    }
    parentPort.postMessage({ id, rows: statement.all(...parameters) })
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } })
  }
})
`

interface Pending {
  resolve(rows: unknown[]): void
  reject(error: Error): void
}

export class SqliteReadWorker {
  private worker: Worker | undefined
  private readonly pending = new Map<number, Pending>()
  private nextId = 0

  constructor(private readonly file: string) {}

  /** Runs a compiled read in the worker (started on first use); rejects with SQLite's error and code. */
  run<R>(sql: string, parameters: readonly unknown[]): Promise<R[]> {
    const worker = this.start()
    const id = this.nextId++
    return new Promise<R[]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject })
      worker.postMessage({ id, sql, parameters })
    })
  }

  async close(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    if (worker) await worker.terminate()
    this.failAll(new Error('the read worker was closed'))
  }

  private start(): Worker {
    if (this.worker) return this.worker
    const driverPath = createRequire(import.meta.url).resolve(sqliteDriverPackage)
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driverPath, file: this.file } })
    worker.unref()
    worker.on('message', ({ id, rows, error }: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
      const waiting = this.pending.get(id)
      this.pending.delete(id)
      if (!waiting) return
      if (error) waiting.reject(Object.assign(new Error(error.message), { code: error.code }))
      else waiting.resolve(rows ?? [])
    })
    worker.on('error', (error) => {
      this.worker = undefined
      this.failAll(error)
    })
    this.worker = worker
    return worker
  }

  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error)
    this.pending.clear()
  }
}

const workers = new WeakMap<object, SqliteReadWorker>()

/** Gives a database its read worker (SQLite only); a transaction of it has none. */
export function registerReadWorker(db: Kysely<never> | object, worker: SqliteReadWorker): void {
  workers.set(db, worker)
}

/** Runs a read that may scan many rows off the event loop where the database allows it. */
export async function readOffLoop<R>(db: object, query: Compilable<R> & { execute(): Promise<R[]> }): Promise<R[]> {
  const worker = workers.get(db)
  if (worker === undefined) return query.execute()
  const { sql, parameters } = query.compile()
  return worker.run<R>(sql, parameters)
}
