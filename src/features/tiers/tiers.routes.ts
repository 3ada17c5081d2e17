// Subscription tiers in every version: anyone reads, superusers manage. Version 2 adds each
// tier's storage quota (the files feature's), readable and settable.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TSchema } from 'typebox'
import { Type } from 'typebox'

import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { callerOf } from '../../plugins/authentication.js'
import type { Tier } from './tier.js'
import { TierCreate, TierCreateV2, TierIdParams, TierQuotaUpdate, TierRead, TierReadV2 } from './tiers.schemas.js'

const tags = ['tiers']

const toTierRead = (tier: Tier) => ({ id: tier.id, name: tier.name, created_at: tier.createdAt })
const toTierReadV2 = (tier: Tier) => ({ ...toTierRead(tier), storage_bytes: tier.storageBytes, storage_files: tier.storageFiles })

export interface TierRouteOptions {
  /** Version 2: storage quotas in the read shape, on create, and PATCH. */
  quotas?: boolean
}

interface QuotaFields {
  storage_bytes?: number | null
  storage_files?: number | null
}

const quotaOf = (body: QuotaFields) => ({ bytes: body.storage_bytes, files: body.storage_files })

const tiersRoutes: FastifyPluginAsyncTypebox<TierRouteOptions> = async (app, { quotas = false }) => {
  const { tiers } = app.services
  const read: TSchema = quotas ? TierReadV2 : TierRead
  const toRead = quotas ? toTierReadV2 : toTierRead

  app.get('/', { schema: { tags, summary: 'List tiers', response: { 200: Type.Array(read), ...errorResponses(429) } } }, async () =>
    (await tiers.list()).map(toRead),
  )

  app.get(
    '/:tier_id',
    { schema: { tags, summary: 'Get a tier', params: TierIdParams, response: { 200: read, ...errorResponses(404, 422) } } },
    async (request) => toRead(await tiers.get(request.params.tier_id)),
  )

  app.post(
    '/',
    protectedRoute(app, {
      tags,
      summary: 'Create a tier (superuser)',
      body: quotas ? TierCreateV2 : TierCreate,
      response: { 201: read, ...errorResponses(403, 409, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request, reply) => {
      const body = request.body as { name: string } & QuotaFields
      return reply.code(201).send(toRead(await tiers.create(callerOf(request).user, body.name, quotaOf(body))))
    },
  )

  if (quotas) {
    app.patch(
      '/:tier_id',
      protectedRoute(app, {
        tags,
        summary: "Set a tier's storage quota (superuser); null returns a field to the default",
        params: TierIdParams,
        body: TierQuotaUpdate,
        response: { 200: TierReadV2, ...errorResponses(403, 404, 422) },
      }, { ...superusersOnly, wayIn: 'none' }),
      async (request) => toTierReadV2(await tiers.setStorageQuota(callerOf(request).user, request.params.tier_id, quotaOf(request.body))),
    )
  }

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
