// Each user's last write position on the primary (its WAL LSN, in bytes), kept for as long as a
// replica in use could still be behind it: in Redis when it is configured, so every node sees a
// write made through another, else in this process.
import type { Redis } from 'ioredis'

export interface WalPositions {
  /** Records `lsn` for the user unless a later one is already there. */
  record(userId: number, lsn: number): Promise<void>
  /** The user's last recorded write position, or 0 when none is kept. */
  lastWrite(userId: number): Promise<number>
}

const key = (userId: number) => `wal:${userId}`

// A position only ever moves forward: two writes of one user answered out of order must leave
// the later one.
const RECORD_LATEST = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local lsn = tonumber(ARGV[1])
if lsn > current then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`

export class RedisWalPositions implements WalPositions {
  constructor(
    private readonly redis: Redis,
    private readonly keepMs: number,
  ) {}

  async record(userId: number, lsn: number): Promise<void> {
    await this.redis.eval(RECORD_LATEST, 1, key(userId), String(lsn), String(this.keepMs))
  }

  async lastWrite(userId: number): Promise<number> {
    const value = await this.redis.get(key(userId))
    return value === null ? 0 : Number(value)
  }
}

/** One process's positions; the oldest are forgotten first once `limit` users are kept. */
export class MemoryWalPositions implements WalPositions {
  private readonly positions = new Map<number, { lsn: number; until: number }>()

  constructor(
    private readonly keepMs: number,
    private readonly limit = 100_000,
  ) {}

  async record(userId: number, lsn: number): Promise<void> {
    const current = this.positions.get(userId)
    this.positions.delete(userId)
    this.positions.set(userId, { lsn: Math.max(lsn, current?.lsn ?? 0), until: Date.now() + this.keepMs })
    if (this.positions.size > this.limit) this.positions.delete(this.positions.keys().next().value as number)
  }

  async lastWrite(userId: number): Promise<number> {
    const position = this.positions.get(userId)
    return position === undefined || position.until < Date.now() ? 0 : position.lsn
  }
}
