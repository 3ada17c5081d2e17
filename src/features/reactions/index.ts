// The reactions slice's public face: what other slices may use. Everything else in this folder is
// the slice's own (eslint.config.js refuses a reach past this file).
export type { ReactionSummary, ReactionTarget } from './reaction.js'
export { NO_REACTIONS } from './reaction.js'
export { toReactionSummaryRead } from './reactions.mappers.js'
export { MyReactions, ReactionCounts } from './reactions.schemas.js'
export type { Reactable, ReactionService } from './reactions.service.js'
