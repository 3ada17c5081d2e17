// The posts slice's settings (docs/configuration.md, Content).
import type { Env } from '../../shared/settings.js'
import { integer } from '../../shared/settings.js'

export interface PostSettings {
  /** POST_REVISIONS_KEPT: how many earlier versions of a post are kept; the oldest go as new ones come. */
  revisionsKept: number
}

export function postSettings(env: Env): PostSettings {
  return { revisionsKept: integer(env, 'POST_REVISIONS_KEPT', 50, 1, 1000) }
}
