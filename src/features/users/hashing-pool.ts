// Password hashes (argon2id, tens of milliseconds of CPU each) run in worker threads, as many as
// the settings allow (by default one fewer than the cores, so the event loop keeps a core of
// its own), behind a bounded queue: past it, callers get a 503 at once rather than waiting
// seconds for a hash. A worker may also lower its own scheduling priority (PASSWORD_HASH_NICE),
// for a service that shares one core between its event loop and its hashes: the kernel then
// runs the event loop first, which keeps other requests fast during a burst of logins but lets
// a flood of other requests starve logins (docs/performance.md has both measured).
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

import { DomainError, serviceUnavailable } from '../../shared/errors.js'

export const HASHING_BUSY = 'Too many sign-ins at once: try again in a moment'
/** A hash takes tens of milliseconds; a second is enough for a full queue to move on. */
const BUSY_RETRY_AFTER_SECONDS = 1

export const hashingBusy = () => new DomainError('unavailable', HASHING_BUSY, { code: 'password_hashing_busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS })

// The worker is a script rather than a module file, so it runs the same from the built service
// and from the TypeScript sources under test. On Linux a thread's id names it to setpriority();
// elsewhere (or if the call is refused) the worker keeps its priority.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
if (workerData.nice > 0) {
  try {
    const threadId = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop())
    require('node:os').setPriority(threadId, workerData.nice)
  } catch {}
}
const argon2 = require(workerData.argon2)
parentPort.on('message', ({ operation, hashed, password, parameters }) => {
  try {
    const result = operation === 'hash' ? argon2.hashSync(password, parameters) : argon2.verifySync(hashed, password)
    parentPort.postMessage({ result })
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) })
  }
})
`

export type HashingTask = { operation: 'hash'; password: string; parameters: object } | { operation: 'verify'; hashed: string; password: string }

interface QueuedTask {
  task: HashingTask
  resolve(result: unknown): void
  reject(error: Error): void
}

/** A hash that failed inside the worker: the stored hash is malformed (a wrong password, to the caller). */
export class HashingError extends Error {
  override readonly name = 'HashingError'
}

class HashingWorker {
  private readonly worker: Worker
  private current: QueuedTask | undefined

  constructor(argon2: string, nice: number, onIdle: (worker: HashingWorker) => void, onExit: (worker: HashingWorker) => void) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { argon2, nice } })
    // An idle worker never keeps the process alive (a CLI command ends when its work does).
    this.worker.unref()
    this.worker.on('message', (message: { result?: unknown; error?: string }) => {
      const done = this.current
      this.current = undefined
      this.worker.unref()
      if (message.error !== undefined) done?.reject(new HashingError(message.error))
      else done?.resolve(message.result)
      onIdle(this)
    })
    // A worker that fails or stops mid-hash says nothing about the password: the caller's 503.
    this.worker.on('error', () => this.fail(serviceUnavailable()))
    this.worker.on('exit', () => {
      this.fail(serviceUnavailable())
      onExit(this)
    })
  }

  run(queued: QueuedTask): void {
    this.current = queued
    this.worker.ref()
    this.worker.postMessage(queued.task)
  }

  terminate(): Promise<number> {
    return this.worker.terminate()
  }

  private fail(error: Error): void {
    const done = this.current
    this.current = undefined
    done?.reject(error)
  }
}

export class HashingPool {
  private readonly argon2 = createRequire(import.meta.url).resolve('@node-rs/argon2')
  private readonly idle: HashingWorker[] = []
  private readonly workers = new Set<HashingWorker>()
  private readonly waiting: QueuedTask[] = []
  private closed = false

  constructor(
    /** Workers at most, each hashing one password at a time; started on first use. */
    private readonly size: number,
    /** Tasks that may wait for a worker; past that, hashingBusy(). */
    private readonly queueLimit: number,
    /** The workers' scheduling priority: 0 as the event loop's, up to 19 (the lowest). */
    private readonly nice: number,
  ) {}

  run<T>(task: HashingTask): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) return reject(serviceUnavailable())
      const queued: QueuedTask = { task, resolve: resolve as (result: unknown) => void, reject }
      const worker = this.idle.pop() ?? this.startWorker()
      if (worker) return worker.run(queued)
      if (this.waiting.length >= this.queueLimit) return reject(hashingBusy())
      this.waiting.push(queued)
    })
  }

  async close(): Promise<void> {
    this.closed = true
    for (const queued of this.waiting.splice(0)) queued.reject(serviceUnavailable())
    await Promise.all([...this.workers].map((worker) => worker.terminate()))
  }

  private startWorker(): HashingWorker | undefined {
    if (this.closed || this.workers.size >= this.size) return undefined
    const worker = new HashingWorker(
      this.argon2,
      this.nice,
      (idle) => this.next(idle),
      (exited) => {
        this.workers.delete(exited)
        const at = this.idle.indexOf(exited)
        if (at !== -1) this.idle.splice(at, 1)
        // A worker that died (out of memory, say) is replaced for whoever is waiting.
        const replacement = this.waiting.length > 0 ? this.startWorker() : undefined
        if (replacement) this.next(replacement)
      },
    )
    this.workers.add(worker)
    return worker
  }

  private next(worker: HashingWorker): void {
    const queued = this.waiting.shift()
    if (queued) worker.run(queued)
    else this.idle.push(worker)
  }
}
