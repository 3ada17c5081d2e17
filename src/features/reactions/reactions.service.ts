// Reactions: a signed-in reader of a published post or a visible comment adds one of the REACTIONS
// kinds (again: nothing changes) and takes it back. Who may react is who may read the target (the
// post policy, through the posts and comments slices); 404 otherwise. Counts are kept by the
// database in the reaction's own statement, so they are exact under any concurrency; a page
// reads its targets' summaries in one statement, or none when none of them has a reaction.
import type { UnitOfWork } from '../../db/unit-of-work.js'
import type { ClientInfo } from '../../shared/client-info.js'
import { DomainError, forbidden } from '../../shared/errors.js'
import { everyRowAfter } from '../../shared/paging.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { ChangeEventService } from '../change-events/index.js'
import type { CommentService } from '../comments/index.js'
import type { PostCaller, PostService } from '../posts/index.js'
import { assertVerifiedWriter } from '../posts/index.js'
import type { ReactionSummary, ReactionTarget } from './reaction.js'
import { NO_REACTIONS } from './reaction.js'
import type { ReactionsRepository } from './reactions.repository.js'

export interface ReactionServiceDependencies {
  reactions: ReactionsRepository
  unitOfWork: UnitOfWork
  /** Writes `post.reactions_changed` in the unit that takes the marks. */
  changes: Pick<ChangeEventService, 'postReactionsChanged'>
  posts: Pick<PostService, 'readFor' | 'livePostsIn'>
  comments: Pick<CommentService, 'getInPost'>
  /** The blocks slice's rule: 403 `blocked` when the target's author blocked the caller. */
  blocks: { assertNotBlocked(ownerIds: readonly number[], userId: number): Promise<void> }
  kinds: readonly string[]
  options: { requireVerifiedEmail: boolean }
}

/** Posts announced per run of the reaction-events job. */
const ANNOUNCE_BATCH = 100
/** How often the posts whose reactions changed are announced: the most a `post.reactions_changed` lags, and what it coalesces. */
export const REACTION_EVENTS_INTERVAL_MS = 2_000

const notReactable = () => new DomainError('forbidden', 'This takes no reactions', { code: 'not_reactable' })

/** A target of a page: its id and its kept total (0: nothing to read). */
export interface Reactable {
  id: number
  reactionCount: number
}

export class ReactionService {
  constructor(private readonly dependencies: ReactionServiceDependencies) {}

  /** Adds the caller's reaction (idempotent); the target's reactions as they are now. */
  async react(caller: PostCaller, target: ReactionTarget, id: number, kind: string, client: ClientInfo): Promise<ReactionSummary> {
    await this.assertMayReact(caller, target, id, client)
    await this.dependencies.reactions.addReaction(target, id, caller.id, kind)
    return this.summaryOf(target, id, caller.id)
  }

  /** Takes the caller's reaction back (idempotent). */
  async unreact(caller: PostCaller, target: ReactionTarget, id: number, kind: string, client: ClientInfo): Promise<ReactionSummary> {
    await this.assertMayReact(caller, target, id, client)
    await this.dependencies.reactions.removeReaction(target, id, caller.id, kind)
    return this.summaryOf(target, id, caller.id)
  }

  /** The summaries of a page of targets for a reader (null: nobody signed in): one read, none when no target has a reaction. */
  async summariesOf(target: ReactionTarget, items: readonly Reactable[], userId: number | null): Promise<Map<number, ReactionSummary>> {
    const ids = items.filter((item) => item.reactionCount > 0).map((item) => item.id)
    const summaries = new Map<number, ReactionSummary>()
    if (ids.length === 0) return summaries
    const rows = await this.dependencies.reactions.summaryRows(target, ids, userId)
    const order = this.dependencies.kinds
    for (const row of rows) {
      const targetId = Number(row.target_id)
      let summary = summaries.get(targetId)
      if (!summary) summaries.set(targetId, (summary = { counts: {}, mine: [] }))
      if (Number(row.mine) === 1) summary.mine.push(row.kind)
      else summary.counts[row.kind] = Number(row.count)
    }
    for (const summary of summaries.values()) summary.mine.sort((a, b) => order.indexOf(a) - order.indexOf(b))
    return summaries
  }

  /**
   * The `reaction-events` job's run: one `post.reactions_changed` for each post whose reactions
   * changed since the last, with its counts as they are now, written in the unit that takes the
   * marks (a crash before it commits leaves them for the next run, in any process). True while
   * more may wait.
   */
  async announceChanges(): Promise<boolean> {
    const { reactions, unitOfWork, posts, changes } = this.dependencies
    return unitOfWork.run(async (unit) => {
      const ids = await reactions.in(unit).takeChangedPosts(ANNOUNCE_BATCH)
      const live = await posts.livePostsIn(unit, ids)
      if (live.length > 0) {
        const counts = new Map<number, Record<string, number>>()
        for (const row of await reactions.in(unit).summaryRows('post', live.map((post) => post.id), null)) {
          const id = Number(row.target_id)
          counts.set(id, { ...counts.get(id), [row.kind]: Number(row.count) })
        }
        for (const post of live) await changes.postReactionsChanged(unit, post, counts.get(post.id) ?? {})
      }
      return ids.length === ANNOUNCE_BATCH
    })
  }

  /** Every reaction of a user's, on posts and then on comments: their data export, a page in memory at a time. */
  async *everyReactionOf(userId: number): AsyncGenerator<{ target: ReactionTarget; target_id: number; kind: string; created_at: string }> {
    for (const target of ['post', 'comment'] as const) {
      const rows = everyRowAfter(
        (after: { id: number; kind: string }, limit) => this.dependencies.reactions.reactionsOfUserAfter(target, userId, after.id, after.kind, limit),
        (row) => ({ id: Number(row.target_id), kind: row.kind }),
        { id: 0, kind: '' },
      )
      for await (const row of rows) yield { target, target_id: Number(row.target_id), kind: row.kind, created_at: toIsoString(row.created_at) }
    }
  }

  private async summaryOf(target: ReactionTarget, id: number, userId: number): Promise<ReactionSummary> {
    return (await this.summariesOf(target, [{ id, reactionCount: 1 }], userId)).get(id) ?? NO_REACTIONS
  }

  /** 404 for a target the caller may not read; 403 for one that takes no reactions, or a caller who may not write. */
  private async assertMayReact(caller: PostCaller, target: ReactionTarget, id: number, client: ClientInfo): Promise<void> {
    if (caller.readOnly) throw forbidden()
    assertVerifiedWriter(caller, this.dependencies.options.requireVerifiedEmail)
    if (target === 'post') {
      const { post } = await this.dependencies.posts.readFor(caller, id, client)
      if (post.status !== 'published') throw notReactable()
      await this.dependencies.blocks.assertNotBlocked([post.authorId], caller.id)
      return
    }
    // A comment takes them while it is visible on a published post.
    const { comment, post } = await this.dependencies.comments.getInPost(caller, id, client)
    if (comment.status !== 'visible' || post.status !== 'published') throw notReactable()
    await this.dependencies.blocks.assertNotBlocked([comment.authorId!], caller.id)
  }
}
