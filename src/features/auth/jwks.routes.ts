// GET /.well-known/jwks.json: the public keys access tokens are signed with, so another service
// verifies a token with no call to this one but this (cached) document: `jose`'s
// createRemoteJWKSet does it in a few lines (docs/frontend.md, "Verifying a token in another
// service"). Empty with JWT_ALGORITHM=HS256, whose key is a secret.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { errorResponses } from '../../api/common/responses.js'

const Jwks = Type.Object(
  { keys: Type.Array(Type.Object({ kid: Type.String(), kty: Type.String(), alg: Type.String(), use: Type.Literal('sig') }, { additionalProperties: true })) },
  { title: 'JsonWebKeySet' },
)

/** Verifiers may keep the document this long; a new key is published before it signs anything a minute later elsewhere, and unknown kids make them fetch again. */
const CACHE_SECONDS = 300

const jwksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/.well-known/jwks.json', { schema: { hide: true, response: { 200: Jwks, ...errorResponses(503) } } }, async (_request, reply) => {
    const { keys } = await app.services.tokens.jwks()
    return reply.header('cache-control', `public, max-age=${CACHE_SECONDS}`).send({ keys: keys as { kid: string; kty: string; alg: string; use: 'sig' }[] })
  })
}

export default jwksRoutes
