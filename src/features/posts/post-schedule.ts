// Scheduled publishing's rule (docs/api.md "Scheduled publishing"): what a write makes of a post's
// status and its time to go out. A post with a time is `scheduled`, read as a draft until the
// publishing job makes it `published`; taking the time away (or naming another status) ends it.
import { RuleViolation } from '../../shared/errors.js'
import type { PostStatus } from './post-policy.js'

/** The furthest ahead a post may be scheduled. */
export const MAX_SCHEDULE_AHEAD_MS = 366 * 86_400_000

export interface Schedule {
  status: PostStatus
  publishAt: string | null
}

const refused = (message: string, type: string) => new RuleViolation('publish_at', message, type)

/** A time to come within MAX_SCHEDULE_AHEAD_MS, in the stored form; else 422 on `publish_at`. */
function timeToCome(value: string, now: number): string {
  const at = Date.parse(value)
  if (Number.isNaN(at)) throw refused('Must be a date and time (ISO 8601)', 'value_error.datetime')
  if (at <= now) throw refused('Must be a time to come', 'value_error.past')
  if (at - now > MAX_SCHEDULE_AHEAD_MS) throw refused('Must be within a year', 'value_error.too_far')
  return new Date(at).toISOString()
}

/**
 * The status and time a post has after a write: `current` is the post before it (null on create,
 * where the status is `published` unless named). A time schedules the post (422 with a status other
 * than `scheduled`); null takes a scheduled post back to a draft; `draft` or `published` ends a
 * schedule; `scheduled` alone keeps a post's time, or is 422 for a post that has none.
 */
export function scheduleOf(current: Schedule | null, changes: { status?: PostStatus; publishAt?: string | null }, now = Date.now()): Schedule {
  const { status, publishAt } = changes
  if (typeof publishAt === 'string') {
    if (status !== undefined && status !== 'scheduled') throw refused('A post with publish_at is scheduled: leave status out, or make it scheduled', 'value_error.status')
    return { status: 'scheduled', publishAt: timeToCome(publishAt, now) }
  }
  if (status === 'scheduled') {
    if (publishAt === undefined && current?.status === 'scheduled') return current
    throw refused('A scheduled post needs publish_at: when it goes out', 'missing')
  }
  if (status !== undefined) return { status, publishAt: null }
  if (current === null) return { status: 'published', publishAt: null }
  if (publishAt === null && current.status === 'scheduled') return { status: 'draft', publishAt: null }
  return current
}
