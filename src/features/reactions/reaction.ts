// What reactions a post or comment has, as its reader sees them.

/** What a reaction is on. */
export type ReactionTarget = 'post' | 'comment'

export interface ReactionSummary {
  /** Its reactions by kind; a kind nobody chose is absent. */
  counts: Record<string, number>
  /** The reader's own, in the order of REACTIONS; empty for nobody signed in. */
  mine: string[]
}

export const NO_REACTIONS: ReactionSummary = Object.freeze({ counts: Object.freeze({}) as Record<string, number>, mine: Object.freeze([]) as unknown as string[] })
