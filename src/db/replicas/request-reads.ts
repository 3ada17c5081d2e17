// What a request may read from a replica, carried with the request through AsyncLocalStorage
// (set by src/plugins/read-consistency.ts), so a repository function bound once per process
// learns whose request it serves without every service passing it along. Outside a request
// (background jobs, the scheduler, start-up) there is none, and every read runs on the primary.
import { AsyncLocalStorage } from 'node:async_hooks'

export class RequestReads {
  /** The user whose write this request made, when it signed someone in (no caller yet). */
  writer: number | undefined
  /** Whether the request has written (a unit of work, or a repository function declared `write`). */
  wrote = false
  /** The caller's last write position, looked up once per request on its first replica read. */
  lastWrite: Promise<number> | undefined

  constructor(
    /** GET and HEAD: a change's own reads run on the primary, so it sees what it just wrote. */
    private readonly safeMethod: boolean,
    /** The signed-in user or API key owner of the request, when there is one. */
    readonly callerId: () => number | undefined,
  ) {}

  /** A GET or HEAD that has not written: once a request writes (a sign-in through a link), it reads the primary. */
  mayUseReplica(): boolean {
    return this.safeMethod && !this.wrote
  }

  /** Whether its answer must record the caller's write position: it wrote, or it is a change. */
  changed(): boolean {
    return this.wrote || !this.safeMethod
  }

  /** Whose writes this request's reads must see, and whose position a change records. */
  userId(): number | undefined {
    return this.callerId() ?? this.writer
  }
}

const storage = new AsyncLocalStorage<RequestReads>()
let users = 0

/**
 * Taken by each open replica set, given back when it closes: once none is open, the storage is
 * disabled, so a process (a test worker) that no longer serves replicas stops paying for the
 * context it carries on every promise.
 */
export function retainReadContexts(): () => void {
  users++
  let released = false
  return () => {
    if (released) return
    released = true
    if (--users === 0) storage.disable()
  }
}

export function runWithReads(reads: RequestReads, run: () => void): void {
  storage.run(reads, run)
}

export function currentReads(): RequestReads | undefined {
  return storage.getStore()
}

/** Marks the current request as one that wrote (src/db/repository.ts, src/db/unit-of-work.ts call it with replicas on). */
export function noteWrite(): void {
  const reads = storage.getStore()
  if (reads !== undefined) reads.wrote = true
}

/**
 * Says that this request wrote on behalf of `userId` though it came without a caller (a sign-in
 * starts a session): that user's next reads must see it, as a caller's reads see their own writes.
 */
export function noteWriteFor(userId: number): void {
  const reads = storage.getStore()
  if (reads !== undefined) {
    reads.writer = userId
    reads.wrote = true
  }
}
