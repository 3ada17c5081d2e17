// Reactions on posts and comments, with counts kept exact by the database, read by whoever may read
// the post (the post policy, through the posts and comments slices).
import { type Feature, routes } from '../feature.js'
import { reactionsErrorCodes } from './errors.js'
import { reactionsFunctions, reactionsReadTargets } from './reactions.repository.js'
import { REACTION_EVENTS_INTERVAL_MS, ReactionService } from './reactions.service.js'
import reactionsV2Routes from './reactions.v2.routes.js'
import { type ReactionSettings, reactionSettings } from './settings.js'

interface ReactionsServices {
  reactions: ReactionService
}

export const reactionsFeature: Feature<ReactionsServices, { reactions: ReactionSettings }> = {
  name: 'reactions',
  settings: (env) => ({ reactions: reactionSettings(env) }),
  errors: reactionsErrorCodes,
  needs: ['posts', 'comments', 'blocks', 'change-events'],
  create({ config, bind, unitOfWork, peers }) {
    const reactions = new ReactionService({
      reactions: bind(reactionsFunctions, reactionsReadTargets),
      unitOfWork,
      changes: peers.changeEvents,
      posts: peers.posts,
      comments: peers.comments,
      blocks: peers.blocks,
      kinds: config.reactions.kinds,
      options: { requireVerifiedEmail: config.requireVerifiedEmail },
    })
    return { reactions }
  },
  migrations: ['2026-12-09-02-reactions'],
  routes: { v2: [routes(reactionsV2Routes)] },
  jobs: ({ services }) => [
    // A fixed rhythm: what it coalesces is what comes within one interval.
    { name: 'reaction-events', intervalMs: REACTION_EVENTS_INTERVAL_MS, run: () => services.reactions.announceChanges() },
  ],
}
