// API keys, the same in every version: a logged-in user (never a key) creates, lists and revokes
// their own keys; the key is shown once.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses,MessageResponse } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { toApiKeyRead } from './api-keys.mappers.js'
import { ApiKeyCreate, ApiKeyCreated, ApiKeyIdParams, ApiKeyRead } from './api-keys.schemas.js'

const tags = ['api-keys']

const apiKeysRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { apiKeys } = app.services
  const tokenOnly = { apiKeys: false }

  app.post(
    '/',
    protectedRoute(app, { tags, summary: 'Create an API key (shown once)', body: ApiKeyCreate, response: { 201: ApiKeyCreated, ...errorResponses(403, 422) } }, { ...tokenOnly, wayIn: 'adds' }),
    async (request, reply) => {
      const { name, scopes, expires_in_days: expiresInDays } = request.body
      const created = await apiKeys.create(tokenCallerOf(request).user, { name, scopes, expiresInDays })
      return reply.code(201).send({ key: created.key, ...toApiKeyRead(created) })
    },
  )

  app.get(
    '/',
    protectedRoute(app, { tags, summary: "The caller's keys, without their secrets", response: { 200: Type.Array(ApiKeyRead), ...errorResponses(403) } }, tokenOnly),
    async (request) => (await apiKeys.list(tokenCallerOf(request).user)).map(toApiKeyRead),
  )

  app.delete(
    '/:api_key_id',
    protectedRoute(
      app,
      { tags, summary: 'Revoke one of the caller’s keys', params: ApiKeyIdParams, response: { 200: MessageResponse, ...errorResponses(403, 404, 422) } },
      { ...tokenOnly, wayIn: 'none', impersonation: 'refused' },
    ),
    async (request) => {
      await apiKeys.revoke(tokenCallerOf(request).user, request.params.api_key_id)
      return { message: 'API key revoked' }
    },
  )
}

export default apiKeysRoutes
