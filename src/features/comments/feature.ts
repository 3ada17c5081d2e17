// Comments and replies on posts, read by whoever may read the post (the post policy), written as
// its `comments` setting allows, hidden by its moderators.
import { type Feature, routes } from '../feature.js'
import { commentSearchFunctions, commentSearchReadTargets } from './comment-search.repository.js'
import { commentsFunctions, commentsReadTargets } from './comments.repository.js'
import { CommentService } from './comments.service.js'
import commentsV2Routes from './comments.v2.routes.js'
import { commentsErrorCodes } from './errors.js'

interface CommentsServices {
  comments: CommentService
}

export const commentsFeature: Feature<CommentsServices> = {
  name: 'comments',
  errors: commentsErrorCodes,
  needs: ['posts', 'change-events', 'security-events', 'blocks'],
  calls: ['reactions', 'notifications'],
  create({ config, bind, unitOfWork, peers }) {
    const comments = new CommentService({
      comments: bind(commentsFunctions, commentsReadTargets),
      searchIndex: bind(commentSearchFunctions, commentSearchReadTargets),
      unitOfWork,
      posts: peers.posts,
      changes: peers.changeEvents,
      securityEvents: peers.securityEvents,
      blocks: peers.blocks,
      notifications: { replied: (unit, reply) => peers.notifications.replied(unit, reply) },
      reactions: { summariesOf: (target, items, userId) => peers.reactions.summariesOf(target, items, userId) },
      options: { requireVerifiedEmail: config.requireVerifiedEmail },
    })
    return { comments }
  },
  migrations: ['2026-12-09-01-comments', '2026-12-10-01-comment-thread-counts', '2026-12-16-01-comment-search'],
  routes: { v2: [routes(commentsV2Routes)] },
}
