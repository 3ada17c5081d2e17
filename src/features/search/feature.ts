// Search: one address for finding things (docs/api.md "Search"). Posts are ranked by the posts
// slice under its policy, comments by the comments slice under the same policy, users are found
// by the users slice under its rules; this slice reads the query and shapes the hits.
import { type Feature, routes } from '../feature.js'
import searchRoutes from './search.v2.routes.js'

export const searchFeature: Feature = {
  name: 'search',
  calls: ['posts', 'comments', 'users', 'content-fields'],
  routes: { v2: [routes(searchRoutes)] },
}
