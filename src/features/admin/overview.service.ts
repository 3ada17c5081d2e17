// The admin console's overview: live users and posts, sign-ups and logins per day over the last
// week, and whether the database and Redis answer.
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser } from '../../shared/errors.js'
import type { DayCount, OverviewRepository } from './overview.repository.js'

export const OVERVIEW_DAYS = 7
/** A store that does not answer within this long counts as unavailable (the page must not hang on it). */
const PROBE_TIMEOUT_MS = 1000

export type StoreStatus = 'ok' | 'unavailable' | 'not_configured'

export interface DayActivity {
  day: string
  signUps: number
  logins: number
  /** Abuse protection: CAPTCHA tokens refused, breached passwords refused, addresses blocked for their domain. */
  captchaFailures: number
  breachedPasswords: number
  blockedDomains: number
}

export interface Overview {
  users: number
  posts: number
  /** The last OVERVIEW_DAYS UTC days, oldest first, today last. */
  days: DayActivity[]
  database: { dialect: 'sqlite' | 'postgres'; status: StoreStatus }
  redis: StoreStatus
}

export interface StoreProbes {
  database: () => Promise<unknown>
  /** Absent when no Redis is configured. */
  redis?: () => Promise<unknown>
}

async function probe(check: (() => Promise<unknown>) | undefined): Promise<StoreStatus> {
  if (!check) return 'not_configured'
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), PROBE_TIMEOUT_MS)
  })
  try {
    await Promise.race([check(), timeout])
    return 'ok'
  } catch {
    return 'unavailable'
  } finally {
    clearTimeout(timer)
  }
}

/** The UTC days (YYYY-MM-DD) of the last `count` days up to `now`, oldest first. */
export function lastDays(now: Date, count: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  return Array.from({ length: count }, (_, index) => new Date(today - (count - 1 - index) * 86_400_000).toISOString().slice(0, 10))
}

const byDay = (counts: DayCount[]) => new Map(counts.map(({ day, count }) => [day, count]))

export class OverviewService {
  constructor(
    private readonly repository: OverviewRepository,
    private readonly probes: StoreProbes,
  ) {}

  async overview(actor: Actor, now = new Date()): Promise<Overview> {
    assertSuperuser(actor)
    const days = lastDays(now, OVERVIEW_DAYS)
    const since = days[0] ?? ''
    // Every count here is kept up to date by triggers: the page costs the same at any size.
    const [users, posts, signUps, logins, captchaFailures, breachedPasswords, blockedDomains, database, redis] = await Promise.all([
      this.repository.liveUserCount(),
      this.repository.livePostCount(),
      this.repository.dailyCounts('sign_ups', since).then(byDay),
      this.repository.dailyCounts('logins', since).then(byDay),
      this.repository.dailyCounts('captcha_failures', since).then(byDay),
      this.repository.dailyCounts('breached_passwords', since).then(byDay),
      this.repository.dailyCounts('blocked_domains', since).then(byDay),
      probe(this.probes.database),
      probe(this.probes.redis),
    ])
    return {
      users,
      posts,
      days: days.map((day) => ({
        day,
        signUps: signUps.get(day) ?? 0,
        logins: logins.get(day) ?? 0,
        captchaFailures: captchaFailures.get(day) ?? 0,
        breachedPasswords: breachedPasswords.get(day) ?? 0,
        blockedDomains: blockedDomains.get(day) ?? 0,
      })),
      database: { dialect: this.repository.databaseDialect(), status: database },
      redis,
    }
  }
}
