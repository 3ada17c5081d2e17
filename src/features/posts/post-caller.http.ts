// The caller of a post route as the posts service sees them: nobody, a user, or a user through
// an API key (which may only read without its `write` scope).
import type { FastifyRequest } from 'fastify'

import { callerOf } from '../../plugins/authentication.js'
import type { Caller } from '../auth/index.js'
import type { PostCaller } from './posts.service.js'

const toPostCaller = ({ user, apiKey }: Caller): PostCaller => ({
  id: user.id,
  isSuperuser: user.isSuperuser,
  isVerified: user.isVerified,
  readOnly: apiKey !== undefined && !apiKey.scopes.includes('write'),
})

/** Anyone: null when the request came without working credentials. */
export const postCallerOf = (request: FastifyRequest): PostCaller | null => (request.caller ? toPostCaller(request.caller) : null)

/** The caller of a route that ran app.authenticate (401 otherwise). */
export const signedInPostCallerOf = (request: FastifyRequest): PostCaller => toPostCaller(callerOf(request))
