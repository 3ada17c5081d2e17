// The posts slice's settings (docs/configuration.md, Content).
import type { Env } from '../../shared/settings.js'
import { integer } from '../../shared/settings.js'

export interface PostSettings {
  /** POST_REVISIONS_KEPT: how many earlier versions of a post are kept; the oldest go as new ones come. */
  revisionsKept: number
  /** POST_TRASH_DAYS: how long a post deleted through version 2 waits in its author's trash before it is removed for good. */
  trashDays: number
}

export function postSettings(env: Env): PostSettings {
  return { revisionsKept: integer(env, 'POST_REVISIONS_KEPT', 50, 1, 1000), trashDays: integer(env, 'POST_TRASH_DAYS', 30, 1, 3650) }
}
