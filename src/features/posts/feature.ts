// Posts: create, read, list, search, update and delete.
import { type Feature, routes } from '../feature.js'
import { toPostRead } from './posts.mappers.js'
import postsRoutes from './posts.routes.js'

export const postsFeature: Feature = {
  name: 'posts',
  migrations: ['2026-11-21-04-posts', '2026-11-21-05-row-counts', '2026-11-21-07-live-row-indexes', '2026-11-23-01-trigram-indexes-without-pending-list'],
  routes: {
    v1: [routes(postsRoutes, { prefix: '/posts', list: 'array', toPostRead })],
    v2: [routes(postsRoutes, { prefix: '/posts', list: 'envelope', toPostRead })],
  },
}
