// Subscription tiers, the same in every version: anyone reads, superusers manage.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses,MessageResponse } from '../../api/common/responses.js'
import { callerOf } from '../../plugins/authentication.js'
import type { Tier } from './tier.js'
import { TierCreate, TierIdParams, TierRead } from './tiers.schemas.js'

const tags = ['tiers']

const toTierRead = (tier: Tier) => ({ id: tier.id, name: tier.name, created_at: tier.createdAt })

const tiersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { tiers } = app.services

  app.get('/', { schema: { tags, summary: 'List tiers', response: { 200: Type.Array(TierRead), ...errorResponses(429) } } }, async () =>
    (await tiers.list()).map(toTierRead),
  )

  app.get(
    '/:tier_id',
    { schema: { tags, summary: 'Get a tier', params: TierIdParams, response: { 200: TierRead, ...errorResponses(404, 422) } } },
    async (request) => toTierRead(await tiers.get(request.params.tier_id)),
  )

  app.post(
    '/',
    protectedRoute(app, {
      tags,
      summary: 'Create a tier (superuser)',
      body: TierCreate,
      response: { 201: TierRead, ...errorResponses(403, 409, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request, reply) => reply.code(201).send(toTierRead(await tiers.create(callerOf(request).user, request.body.name))),
  )

  app.delete(
    '/:tier_id',
    protectedRoute(app, {
      tags,
      summary: 'Delete a tier; its users fall back to none (superuser)',
      params: TierIdParams,
      response: { 200: MessageResponse, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      await tiers.delete(callerOf(request).user, request.params.tier_id)
      return { message: 'Tier deleted' }
    },
  )
}

export default tiersRoutes
