// Feeds: RSS 2.0, Atom and JSON Feed of public, published posts (docs/api.md "Feeds"), read from
// the posts slice as an anonymous reader's list.
import { type Feature, routes } from '../feature.js'
import { feedsErrorCodes } from './errors.js'
import feedsRoutes from './feeds.v2.routes.js'
import { type FeedSettings, feedSettings } from './settings.js'

export const feedsFeature: Feature<object, { feeds: FeedSettings }> = {
  name: 'feeds',
  errors: feedsErrorCodes,
  calls: ['posts'],
  settings: (env) => ({ feeds: feedSettings(env) }),
  routes: { v2: [routes(feedsRoutes)] },
}
