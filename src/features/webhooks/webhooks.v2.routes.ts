// /api/v2/admin/webhooks: superusers manage webhook endpoints, send a ping, read an endpoint's
// deliveries and send one again. Validate, call one WebhookService method, map.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

import { clientOf } from '../../api/common/client-info.js'
import { toPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { toDeliveryRead, toWebhookCreated, toWebhookRead } from './webhooks.v2.mappers.js'
import {
  DeliveryIdParams,
  DeliveryPage,
  DeliveryRead,
  WebhookCreate,
  WebhookCreated,
  WebhookIdParams,
  WebhookPage,
  WebhookPageQuery,
  WebhookRead,
  WebhookSecret,
  WebhookUpdate,
} from './webhooks.v2.schemas.js'

const tags = ['webhooks']

const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { webhooks } = app.services
  const superuser = (request: Parameters<typeof tokenCallerOf>[0]) => tokenCallerOf(request).user

  app.post(
    '/webhooks',
    protectedRoute(app, {
      tags,
      summary: 'Register a webhook endpoint; the answer holds its signing secret, shown only now',
      body: WebhookCreate,
      response: { 201: WebhookCreated, ...errorResponses(403, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request, reply) => {
      const created = await webhooks.create(superuser(request), request.body, clientOf(request))
      return reply.code(201).send(toWebhookCreated(created))
    },
  )

  app.get(
    '/webhooks',
    protectedRoute(app, { tags, summary: 'Webhook endpoints, oldest first', querystring: WebhookPageQuery, response: { 200: WebhookPage, ...errorResponses(403, 422) } }, superusersOnly),
    async (request) => {
      const { page, limit } = request.query
      return toPageEnvelope(await webhooks.list(superuser(request), { page, limit, countTotal: true }), { page, limit }, toWebhookRead)
    },
  )

  app.get(
    '/webhooks/:webhook_id',
    protectedRoute(app, { tags, summary: 'One webhook endpoint', params: WebhookIdParams, response: { 200: WebhookRead, ...errorResponses(403, 404, 422) } }, superusersOnly),
    async (request) => toWebhookRead(await webhooks.get(superuser(request), request.params.webhook_id)),
  )

  app.patch(
    '/webhooks/:webhook_id',
    protectedRoute(app, {
      tags,
      summary: 'Change an endpoint\'s URL, events or description, or turn it off and on',
      params: WebhookIdParams,
      body: WebhookUpdate,
      response: { 200: WebhookRead, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => toWebhookRead(await webhooks.update(superuser(request), request.params.webhook_id, request.body)),
  )

  app.delete(
    '/webhooks/:webhook_id',
    protectedRoute(app, { tags, summary: 'Remove an endpoint and its deliveries', params: WebhookIdParams, response: { 200: MessageResponse, ...errorResponses(403, 404, 422) } }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      await webhooks.remove(superuser(request), request.params.webhook_id, clientOf(request))
      return { message: 'Webhook removed' }
    },
  )

  app.post(
    '/webhooks/:webhook_id/rotate-secret',
    protectedRoute(app, {
      tags,
      summary: 'Give the endpoint a new signing secret; the old one keeps signing beside it for 24 hours',
      params: WebhookIdParams,
      response: { 200: WebhookSecret, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      const rotated = await webhooks.rotateSecret(superuser(request), request.params.webhook_id, clientOf(request))
      return { secret: rotated.secret, previous_valid_until: rotated.previousValidUntil }
    },
  )

  app.post(
    '/webhooks/:webhook_id/test',
    protectedRoute(app, { tags, summary: 'Queue a ping to the endpoint', params: WebhookIdParams, response: { 202: DeliveryRead, ...errorResponses(403, 404, 422) } }, { ...superusersOnly, wayIn: 'none' }),
    async (request, reply) => reply.code(202).send(toDeliveryRead(await webhooks.ping(superuser(request), request.params.webhook_id))),
  )

  app.get(
    '/webhooks/:webhook_id/deliveries',
    protectedRoute(app, {
      tags,
      summary: 'An endpoint\'s deliveries, newest first',
      params: WebhookIdParams,
      querystring: WebhookPageQuery,
      response: { 200: DeliveryPage, ...errorResponses(403, 404, 422) },
    }, superusersOnly),
    async (request) => {
      const { page, limit } = request.query
      return toPageEnvelope(await webhooks.deliveries(superuser(request), request.params.webhook_id, { page, limit, countTotal: true }), { page, limit }, toDeliveryRead)
    },
  )

  app.post(
    '/webhooks/deliveries/:delivery_id/redeliver',
    protectedRoute(app, {
      tags,
      summary: 'Send a delivery again (a new delivery with the same body and webhook-id)',
      params: DeliveryIdParams,
      response: { 202: DeliveryRead, ...errorResponses(403, 404, 422) },
    }, { ...superusersOnly, wayIn: 'none' }),
    async (request, reply) => reply.code(202).send(toDeliveryRead(await webhooks.redeliver(superuser(request), request.params.delivery_id))),
  )
}

export default webhookRoutes
