// Who reads a user decides whether its email is shown (EMAIL_VISIBILITY). With `owner`, public
// user reads identify a caller who sends a token; with `public` they stay as cheap as before.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { emailVisibleTo } from '../../modules/users/user.js'
import type { User } from '../../modules/users/user.js'

/** Hooks a public user read needs: identify the caller, only when emails are for their owners. */
export function readerHooks(app: FastifyInstance) {
  return app.config.emailVisibility === 'owner' ? { onRequest: app.identify } : {}
}

/** Whether this request's caller may see `user`'s email. */
export function emailShown(request: FastifyRequest) {
  const viewer = request.caller?.user ?? null
  const visibility = request.server.config.emailVisibility
  return (user: User) => emailVisibleTo(user, viewer, visibility)
}

/** Maps users with a version's mapper, showing each email only to those who may see it. */
export function userReader<R>(request: FastifyRequest, toUserRead: (user: User, showEmail: boolean) => R) {
  const shown = emailShown(request)
  return (user: User) => toUserRead(user, shown(user))
}
