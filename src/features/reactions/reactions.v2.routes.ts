// Version 2's reactions on posts and comments: PUT adds one (idempotent), DELETE takes it back;
// both answer the target's reactions as they are now.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { clientOf } from '../../api/common/client-info.js'
import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { RecordId } from '../../shared/record-id.js'
import { signedInPostCallerOf } from '../posts/index.js'
import type { ReactionTarget } from './reaction.js'
import { toReactionSummaryRead } from './reactions.mappers.js'
import { kindParameter, ReactionSummaryRead } from './reactions.schemas.js'

const tags = ['reactions']
const writes = { wayIn: 'none', impersonation: 'allowed' } as const

const reactionsV2Routes: FastifyPluginAsyncTypebox = async (app) => {
  const { reactions } = app.services
  const kind = kindParameter(app.config.reactions.kinds)
  const targets: { target: ReactionTarget; path: string; id: 'post_id' | 'comment_id'; name: string }[] = [
    { target: 'post', path: '/posts/:post_id/reactions/:kind', id: 'post_id', name: 'a post' },
    { target: 'comment', path: '/comments/:comment_id/reactions/:kind', id: 'comment_id', name: 'a comment' },
  ]
  for (const { target, path, id, name } of targets) {
    const params = Type.Object({ [id]: RecordId, kind })
    const response = { 200: ReactionSummaryRead, ...errorResponses(403, 404, 422) }
    app.put(path, protectedRoute(app, { tags, summary: `React to ${name} (again: nothing changes)`, params, response }, writes), async (request) => {
      const { kind: chosen, [id]: targetId } = request.params as Record<string, string | number>
      return toReactionSummaryRead(await reactions.react(signedInPostCallerOf(request), target, Number(targetId), String(chosen), clientOf(request)))
    })
    app.delete(path, protectedRoute(app, { tags, summary: `Take back a reaction to ${name} (one not there: nothing changes)`, params, response }, writes), async (request) => {
      const { kind: chosen, [id]: targetId } = request.params as Record<string, string | number>
      return toReactionSummaryRead(await reactions.unreact(signedInPostCallerOf(request), target, Number(targetId), String(chosen), clientOf(request)))
    })
  }
}

export default reactionsV2Routes
