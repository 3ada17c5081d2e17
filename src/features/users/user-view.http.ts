// Who reads a user decides whether its email is shown (EMAIL_VISIBILITY, per version): with
// `owner`, only the user (and superusers) see it. The caller is resolved for every request
// (plugins/authentication.ts); the version is the one whose prefix the route is under.
import type { FastifyRequest } from 'fastify'

import { VERSIONS } from '../../versions.js'
import type { User } from './user.js'
import { emailVisibleTo } from './user.js'

const v1Prefix = `${VERSIONS.v1.prefix}/`

/** Whether this request's caller may see `user`'s email. */
export function emailShown(request: FastifyRequest) {
  const viewer = request.caller?.user ?? null
  const byVersion = request.server.config.emailVisibility
  const visibility = request.routeOptions.url?.startsWith(v1Prefix) ? byVersion.v1 : byVersion.v2
  return (user: User) => emailVisibleTo(user, viewer, visibility)
}

/** Maps users with a version's mapper, showing each email only to those who may see it. */
export function userReader<R>(request: FastifyRequest, toUserRead: (user: User, showEmail: boolean) => R) {
  const shown = emailShown(request)
  return (user: User) => toUserRead(user, shown(user))
}
