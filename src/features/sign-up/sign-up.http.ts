// Route options for POST /users/: who may sign up is the users service's rule
// (assertMaySignUp), applied before the body is read; the docs show the bearer scheme only
// where the policy asks for a logged-in caller.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'

import { errorResponses } from '../../api/common/responses.js'
import { bearer } from '../../api/common/security-scheme.js'
import { DomainError } from '../../shared/errors.js'
import type { SignupPolicy } from '../users/index.js'
import { assertMaySignUp } from '../users/index.js'

export function signUpRoute<S extends { response: Record<number, TSchema> }>(app: FastifyInstance, policy: SignupPolicy, schema: S, options: { anonymousDetail?: string } = {}) {
  const checkPolicy = async (request: FastifyRequest) => {
    try {
      assertMaySignUp(request.caller?.user ?? null, policy)
    } catch (error) {
      // Where an anonymous caller should have gone instead, when the route knows.
      if (options.anonymousDetail && error instanceof DomainError && error.kind === 'unauthenticated') throw new DomainError('unauthenticated', options.anonymousDetail, { code: error.code })
      throw error
    }
  }
  // Sign-ups per client address (SIGNUP_RATE_LIMIT), counted across versions; fails closed like
  // login. Counted once the body has passed its limits and schema, right before the hashing.
  const { rateLimits } = app.services
  const limitSignUps = (request: FastifyRequest) => rateLimits.consumeBuckets([['signup-address', request.ip]])
  return {
    // A door: a CAPTCHA may guard it (src/features/abuse).
    config: { door: 'signup' as const },
    onRequest: checkPolicy,
    preHandler: limitSignUps,
    schema: {
      ...schema,
      ...(policy === 'authenticated' ? { security: bearer } : {}),
      response: { ...schema.response, ...errorResponses(401, 429) },
    },
  }
}
