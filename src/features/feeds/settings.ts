// The feeds slice's settings (docs/configuration.md, Content).
import type { Env } from '../../shared/settings.js'
import { ConfigError, url } from '../../shared/settings.js'

export interface FeedSettings {
  /** POST_URL: the frontend's page of a post, with {id} or {slug}: where a feed's items link; the API's post when unset. */
  postUrl: string | undefined
}

export function feedSettings(env: Env): FeedSettings {
  const postUrl = url(env, 'POST_URL', ['http:', 'https:'])
  if (postUrl !== undefined && !postUrl.includes('{id}') && !postUrl.includes('{slug}')) throw new ConfigError(`POST_URL must contain {id} or {slug}, got "${postUrl}"`)
  return { postUrl }
}
