// Version 2's blocks: the caller's list of people they blocked.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { CursorPageEnvelopeSchema, cursorPageRequest, CursorParameter, toCursorPageEnvelope } from '../../api/common/page-envelope.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { callerOf } from '../../plugins/authentication.js'
import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'
import type { Block } from './blocks.service.js'

const tags = ['blocks']
const writes = { wayIn: 'none', impersonation: 'allowed' } as const

const BlockRead = Type.Object({ user_id: Type.Integer(), created_at: Type.String({ format: 'date-time' }) }, { title: 'BlockRead' })
const BlockCreate = Type.Object({ user_id: RecordId }, { additionalProperties: false, title: 'BlockCreate' })
const BlockPage = CursorPageEnvelopeSchema(BlockRead, 'BlockPage')
const BlockListQuery = Type.Object({ page: PageNumber, limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }), cursor: Type.Optional(CursorParameter) })
const toBlockRead = (block: Block) => ({ user_id: block.userId, created_at: block.createdAt })

const blocksV2Routes: FastifyPluginAsyncTypebox = async (app) => {
  const { blocks } = app.services

  app.post(
    '/users/me/blocks',
    protectedRoute(app, { tags, summary: "Block a user: their posts and comments leave the caller's lists and stream, and they may not comment on or react to the caller's", body: BlockCreate, response: { 200: BlockRead, 201: BlockRead, ...errorResponses(404, 422) } }, writes),
    async (request, reply) => {
      const { block, created } = await blocks.block(callerOf(request).user.id, request.body.user_id, clientOf(request))
      return reply.code(created ? 201 : 200).send(toBlockRead(block))
    },
  )

  app.get(
    '/users/me/blocks',
    protectedRoute(app, { tags, summary: 'The users the caller blocked', querystring: BlockListQuery, response: { 200: BlockPage, ...errorResponses(422) } }),
    async (request) => {
      const pageRequest = cursorPageRequest(request.query)
      return toCursorPageEnvelope(await blocks.list(callerOf(request).user.id, pageRequest), pageRequest, toBlockRead)
    },
  )

  app.delete(
    '/users/me/blocks/:user_id',
    protectedRoute(app, { tags, summary: 'Lift a block (none: nothing changes)', params: Type.Object({ user_id: RecordId }), response: { 200: MessageResponse, ...errorResponses(422) } }, writes),
    async (request) => {
      await blocks.unblock(callerOf(request).user.id, request.params.user_id)
      return { message: 'Unblocked' }
    },
  )
}

export default blocksV2Routes
