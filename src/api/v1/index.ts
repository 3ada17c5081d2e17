// Version 1, served under /services/v1: one encapsulated plugin gathering the version's routers.
import type { FastifyPluginAsync } from 'fastify'

import accountRoutes from '../common/account.routes.js'
import apiKeysRoutes from '../common/api-keys.routes.js'
import authRoutes from '../common/auth.routes.js'
import { toPostRead } from '../common/posts.mappers.js'
import postsRoutes from '../common/posts.routes.js'
import rateLimitRulesRoutes from '../common/rate-limit-rules.routes.js'
import tiersRoutes from '../common/tiers.routes.js'
import { registerVersionBasics } from '../version-basics.js'
import usersRoutes from './users.routes.js'

const v1: FastifyPluginAsync = async (app) => {
  await registerVersionBasics(app, 'v1')
  await app.register(authRoutes)
  await app.register(accountRoutes, { resetConfirmation: 'plain' })
  await app.register(usersRoutes, { prefix: '/users' })
  await app.register(postsRoutes, { prefix: '/posts', list: 'array', toPostRead })
  await app.register(tiersRoutes, { prefix: '/tiers' })
  await app.register(rateLimitRulesRoutes, { prefix: '/tiers' })
  await app.register(apiKeysRoutes, { prefix: '/api-keys' })
}

export default v1
