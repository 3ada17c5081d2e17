// What a request's caller sees of a user: the email (EMAIL_VISIBILITY, per version: with `owner`,
// only the user and superusers see it) and the custom fields of their level (userFieldLevel). The
// caller is resolved for every request (plugins/authentication.ts); the version is the one whose
// prefix the route is under.
import type { FastifyRequest } from 'fastify'

import { VERSIONS } from '../../versions.js'
import type { FieldValues } from '../content-fields/index.js'
import type { User } from './user.js'
import { emailVisibleTo, userFieldLevel, userWriterLevel } from './user.js'

const v1Prefix = `${VERSIONS.v1.prefix}/`

/** What one reader sees of one user beyond the public shape. */
export interface UserSight {
  email: boolean
  /** The custom fields of the reader's level. */
  fields: FieldValues
}

/**
 * Whether this request's caller may see `user`'s email, and which of its fields. `as: 'writer'`
 * is the sight of a route whose caller just wrote the user (themselves, a superuser, the one who
 * created the account): the email, and the fields up to the level they may write.
 */
export function userSight(request: FastifyRequest, as: 'reader' | 'writer' = 'reader') {
  const viewer = request.caller?.user ?? null
  const byVersion = request.server.config.emailVisibility
  const visibility = request.routeOptions.url?.startsWith(v1Prefix) ? byVersion.v1 : byVersion.v2
  const fields = request.server.services.contentFields.of('users')
  if (as === 'writer') return (user: User): UserSight => ({ email: true, fields: fields.view(user.storedFields, userWriterLevel(viewer)) })
  return (user: User): UserSight => ({ email: emailVisibleTo(user, viewer, visibility), fields: fields.view(user.storedFields, userFieldLevel(user.id, viewer)) })
}

/** Maps users with a version's mapper, showing each email and field only to those who may see it. */
export function userReader<R>(request: FastifyRequest, toUserRead: (user: User, sight: UserSight) => R, as: 'reader' | 'writer' = 'reader') {
  const sight = userSight(request, as)
  return (user: User) => toUserRead(user, sight(user))
}
