// Version 1, served under /services/v1: one encapsulated plugin gathering the version's routers.
import type { FastifyPluginAsync } from 'fastify'
import authRoutes from './auth.routes.js'
import postsRoutes from './posts.routes.js'
import usersRoutes from './users.routes.js'

const v1: FastifyPluginAsync = async (app) => {
  await app.register(authRoutes)
  await app.register(usersRoutes, { prefix: '/users' })
  await app.register(postsRoutes, { prefix: '/posts' })
}

export default v1
