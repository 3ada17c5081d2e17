// PostgreSQL hot standbys (DATABASE_REPLICA_URLS) and the choice of where a replica-safe read of
// a GET runs. A monitor asks the primary for its WAL position and each replica for what it has
// replayed, a few times a second; a replica serves a read only when
//   - it answers, is a standby, and has replayed the schema version this code needs;
//   - it is at most DATABASE_REPLICA_MAX_LAG_MS behind the primary (it has replayed a position
//     the primary had at most that long ago);
//   - and, for a signed-in caller, it has replayed the caller's last write (read-your-writes:
//     positions recorded per user by src/plugins/read-consistency.ts in src/db/replicas/wal-positions.ts).
// Otherwise the read runs on the primary, without an error: replicas only ever take load off it.
import type { Kysely } from 'kysely'
import { sql } from 'kysely'

import type { DatabaseHandle } from '../database.js'
import type { Database, Executor } from '../schema.js'
import type { RequestReads } from './request-reads.js'
import { currentReads, retainReadContexts } from './request-reads.js'
import type { WalPositions } from './wal-positions.js'

export interface ReplicaSetOptions {
  primary: Kysely<Database>
  replicas: readonly { name: string; handle: DatabaseHandle }[]
  positions: WalPositions
  maxLagMs: number
  /** The newest migration this code runs on; a replica without it is not used. */
  schemaVersion: string
  onError: (error: unknown, replica: string) => void
}

interface Replica {
  readonly name: string
  readonly handle: DatabaseHandle
  /** WAL bytes replayed when last asked. */
  replayed: number
  /** When the monitor last heard from it (0: not since it failed). */
  heardAt: number
  schemaReady: boolean
  reads: number
  /** Its last check failed: reported once, until it answers again. */
  failing: boolean
}

/** A primary position and the last time the primary was seen at it. */
interface Sample {
  lsn: number
  at: number
}

const WAL_POSITION = sql<{ lsn: string }>`select (pg_current_wal_lsn() - '0/0'::pg_lsn)::text as lsn`
const REPLAY_STATE = sql<{ standby: boolean; replayed: string | null; schema: string | null }>`
  select pg_is_in_recovery() as standby,
         (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text as replayed,
         (select max(name) from kysely_migration) as schema`

export class ReplicaSet {
  readonly maxLagMs: number
  /** Replica-safe reads of GETs that ran on the primary: no replica in time, or one failed. */
  fallbacks = 0
  primaryReads = 0
  private readonly replicas: Replica[]
  private samples: Sample[] = []
  private turn = 0
  private primaryFailing = false
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private readonly pollMs: number
  private readonly releaseReadContexts = retainReadContexts()

  constructor(private readonly options: ReplicaSetOptions) {
    this.maxLagMs = options.maxLagMs
    this.pollMs = Math.max(20, Math.min(250, Math.floor(options.maxLagMs / 4)))
    this.replicas = options.replicas.map(({ name, handle }) => ({ name, handle, replayed: 0, heardAt: 0, schemaReady: false, reads: 0, failing: false }))
  }

  /** Starts the monitor; resolves after its first round, so a new process uses replicas at once. */
  async start(): Promise<void> {
    await this.poll()
    const next = () => {
      if (this.stopped) return
      this.timer = setTimeout(() => void this.poll().finally(next), this.pollMs)
      this.timer.unref()
    }
    next()
  }

  async close(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    this.releaseReadContexts()
    await Promise.all(this.replicas.map((replica) => replica.handle.close()))
  }

  /** The primary's WAL position now: recorded for a caller after a change is committed. */
  async writePosition(): Promise<number> {
    const { rows } = await WAL_POSITION.execute(this.options.primary)
    return Number(rows[0]!.lsn)
  }

  /** Records that `userId` wrote: their reads skip replicas that have not replayed this far. */
  async recordWrite(userId: number): Promise<void> {
    await this.options.positions.record(userId, await this.writePosition())
  }

  /**
   * Runs a replica-safe read: on a replica when the current request may use one (see the file's
   * head), else on the primary. A replica that fails the read is left until the monitor hears
   * from it again, and the read runs again on the primary.
   */
  read<Result>(run: (db: Executor) => Promise<Result>): Promise<Result> {
    const reads = currentReads()
    if (reads === undefined || !reads.mayUseReplica()) return this.onPrimary(run)
    const chosen = this.choose(reads)
    if (chosen instanceof Promise) return chosen.then((replica) => this.readOn(replica, run))
    return this.readOn(chosen, run)
  }

  /** Per replica: reads served, lag in milliseconds (Infinity: not usable), WAL bytes replayed when last asked, whether its schema is current. */
  stats(): { name: string; reads: number; lagMs: number; replayed: number; schemaReady: boolean }[] {
    const now = Date.now()
    return this.replicas.map((replica) => ({ name: replica.name, reads: replica.reads, lagMs: this.lagOf(replica, now), replayed: replica.replayed, schemaReady: replica.schemaReady }))
  }

  private onPrimary<Result>(run: (db: Executor) => Promise<Result>): Promise<Result> {
    this.primaryReads++
    return run(this.options.primary)
  }

  private async readOn<Result>(replica: Replica | undefined, run: (db: Executor) => Promise<Result>): Promise<Result> {
    if (replica === undefined) {
      this.fallbacks++
      return this.onPrimary(run)
    }
    replica.reads++
    try {
      return await run(replica.handle.db)
    } catch (error) {
      // A query that fails on the primary too fails again there, as it would have without replicas.
      if (lostConnection(error)) replica.heardAt = 0
      this.fallbacks++
      return await this.onPrimary(run)
    }
  }

  private choose(reads: RequestReads): Replica | undefined | Promise<Replica | undefined> {
    const now = Date.now()
    const usable = this.replicas.filter((replica) => replica.schemaReady && this.lagOf(replica, now) <= this.maxLagMs)
    if (usable.length === 0) return undefined
    const userId = reads.userId()
    if (userId === undefined) return this.next(usable)
    // A store that cannot answer sends the caller to the primary: never an older state than their own.
    reads.lastWrite ??= this.options.positions.lastWrite(userId).catch(() => Number.POSITIVE_INFINITY)
    return reads.lastWrite.then((lsn) => this.next(usable.filter((replica) => replica.replayed >= lsn)))
  }

  private next(replicas: Replica[]): Replica | undefined {
    if (replicas.length === 0) return undefined
    this.turn = (this.turn + 1) % replicas.length
    return replicas[this.turn]
  }

  /** How far behind the primary a replica may be: the age of the newest primary position it has replayed. */
  private lagOf(replica: Replica, now: number): number {
    if (now - replica.heardAt > this.maxLagMs) return Number.POSITIVE_INFINITY
    for (let index = this.samples.length - 1; index >= 0; index--) {
      const sample = this.samples[index]!
      if (sample.lsn <= replica.replayed) return now - sample.at
    }
    return Number.POSITIVE_INFINITY
  }

  private async poll(): Promise<void> {
    try {
      const lsn = await this.writePosition()
      const now = Date.now()
      const last = this.samples.at(-1)
      if (last !== undefined && last.lsn === lsn) last.at = now
      else this.samples.push({ lsn, at: now })
      // Older positions than the longest lag allowed can never make a replica usable.
      while (this.samples.length > 1 && now - this.samples[0]!.at > 2 * this.maxLagMs) this.samples.shift()
      this.primaryFailing = false
    } catch (error) {
      // The primary is down: requests answer 503 on their own; the replicas wait for it. Said once.
      if (!this.primaryFailing) this.options.onError(error, 'primary')
      this.primaryFailing = true
      return
    }
    await Promise.all(this.replicas.map((replica) => this.check(replica)))
  }

  private async check(replica: Replica): Promise<void> {
    try {
      const { rows } = await REPLAY_STATE.execute(replica.handle.db)
      const { standby, replayed, schema } = rows[0]!
      replica.replayed = standby && replayed !== null ? Number(replayed) : 0
      replica.schemaReady = schema !== null && schema >= this.options.schemaVersion
      replica.heardAt = standby ? Date.now() : 0
      replica.failing = false
    } catch (error) {
      if (!replica.failing) this.options.onError(error, replica.name)
      replica.failing = true
      replica.heardAt = 0
    }
  }
}

/** pg's errors of a connection (refused, reset, timed out, server shut down) rather than of the query. */
function lostConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57')
}
