// The reactions' shapes: what every post and comment read of version 2 carries, and the routes' own.
import { Type } from 'typebox'

export const ReactionCounts = Type.Record(Type.String(), Type.Integer(), { description: 'Its reactions by kind (REACTIONS); a kind nobody chose is absent' })
export const MyReactions = Type.Array(Type.String(), { description: "The caller's own reactions, in the order of REACTIONS; empty for nobody signed in" })

export const ReactionSummaryRead = Type.Object({ reaction_counts: ReactionCounts, my_reactions: MyReactions }, { title: 'ReactionSummary' })

/** The kind in a route's path: one of the configured REACTIONS (422 otherwise). */
export const kindParameter = (kinds: readonly string[]) => Type.Union(kinds.map((kind) => Type.Literal(kind)), { description: 'One of REACTIONS' })
