// A summary's wire shape.
import type { ReactionSummary } from './reaction.js'

export const toReactionSummaryRead = (summary: ReactionSummary) => ({ reaction_counts: summary.counts, my_reactions: summary.mine })
