// The reactions slice's settings (docs/configuration.md, Comments and reactions).
import type { Env } from '../../shared/settings.js'
import { ConfigError, read } from '../../shared/settings.js'

export interface ReactionSettings {
  /** REACTIONS: the kinds a post or comment may get, in the order clients show them. */
  kinds: readonly string[]
}

const KIND = /^[a-z0-9_]{1,20}$/
const MAX_KINDS = 20

export function reactionSettings(env: Env): ReactionSettings {
  const raw = read(env, 'REACTIONS') ?? 'like,love,laugh,wow,sad'
  const kinds = [...new Set(raw.split(',').map((kind) => kind.trim()).filter((kind) => kind !== ''))]
  if (kinds.length === 0 || kinds.length > MAX_KINDS || !kinds.every((kind) => KIND.test(kind))) {
    throw new ConfigError(`REACTIONS must be 1 to ${MAX_KINDS} comma-separated names of lowercase letters, digits and _ (at most 20 characters each), got "${raw}"`)
  }
  return { kinds }
}
