// Comments: who reads them is who may read their post (the post policy, asked through the posts
// slice on every path); who writes them, the policy's mayComment; who hides them, its
// mayModerateComments. A reply answers a top-level comment (a reply to a reply answers that
// reply's thread). Each change is a change event in its own unit of work; each moderation, a
// security event of its actor.
import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import type { ClientInfo } from '../../shared/client-info.js'
import { DomainError, forbidden, notAuthenticated } from '../../shared/errors.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { everyRowAfter, fetchPaged } from '../../shared/paging.js'
import { hitWindow, pageOfHits, type SearchAfter, type SearchPageRequest } from '../../shared/search-page.js'
import { searchQueryOf } from '../../shared/search-text.js'
import { nowIso } from '../../shared/timestamps.js'
import type { Reply } from '../notifications/index.js'
import type { Post, PostCaller, PostFilter, PostService, Reader } from '../posts/index.js'
import { assertVerifiedWriter, mayComment, mayModerateComments } from '../posts/index.js'
import type { Reactable, ReactionSummary, ReactionTarget } from '../reactions/index.js'
import type { SecurityEventService } from '../security-events/index.js'
import type { Comment, CommentViewer } from './comment.js'
import { asSeenBy, toStoredComment } from './comment.js'
import type { CommentChangeLog, CommentEventType } from './comment-change-log.js'
import type { CommentSearchRepository } from './comment-search.repository.js'
import type { CommentOrder, CommentsRepository } from './comments.repository.js'
import type { CommentRow } from './comments.table.js'

/** How many replies each thread of a page carries; the rest are read from its replies. */
export const FIRST_REPLIES = 3
/** A deletion's erased words: the row keeps the thread's shape. */
const ERASED = ''

function commentNotFound(): never {
  throw new DomainError('not_found', 'Comment not found', { code: 'comment_not_found' })
}
const commentsClosed = () => new DomainError('forbidden', 'This post takes no comments from you', { code: 'comments_closed' })

export interface CommentInput {
  text: string
  /** The comment it answers (a reply); its thread's top-level comment is what it is filed under. */
  parentId?: number
}

/** A comment the search found: its relevance in this search, and its best passage with the matches marked (search-text.ts MARK_START, MARK_END). */
export interface CommentHit {
  comment: Comment
  rank: number
  snippet: string
}

export interface CommentServiceDependencies {
  comments: CommentsRepository
  /** The search index, kept in each write's unit (comment-search.repository.ts). */
  searchIndex: CommentSearchRepository
  unitOfWork: UnitOfWork
  posts: Pick<PostService, 'readFor' | 'canRead' | 'scopeOf' | 'recordListingIn'>
  changes: CommentChangeLog
  securityEvents: Pick<SecurityEventService, 'record'>
  /** The notifications slice: the reply's mails, queued in its unit. */
  notifications: { replied(unit: Unit, reply: Reply): Promise<void> }
  /** The blocks slice's rule: 403 `blocked` when one of these people blocked the user. */
  blocks: { assertNotBlocked(ownerIds: readonly number[], userId: number): Promise<void> }
  /** The reactions slice's summaries of a page of comments, for its reader. */
  reactions: { summariesOf(target: ReactionTarget, items: readonly Reactable[], userId: number | null): Promise<Map<number, ReactionSummary>> }
  options: { requireVerifiedEmail: boolean }
}

/** A comment, its post, and the caller as the post's reader. */
interface InContext {
  row: CommentRow
  post: Post
  reader: Reader
  viewer: CommentViewer
}

const viewerOf = (reader: Reader, post: Post): CommentViewer => ({ userId: reader.userId, moderates: reader.userId !== null && mayModerateComments(reader, post) })
const isTombstone = (row: CommentRow) => Boolean(row.is_deleted) || row.status === 'deleted' || row.status === 'removed'

export class CommentService {
  constructor(private readonly dependencies: CommentServiceDependencies) {}

  /** A page of the post's threads, each with its first replies; 404 for a post the caller may not read. */
  async listThreads(caller: PostCaller | null, postId: number, order: CommentOrder, request: PageRequest, client: ClientInfo): Promise<Paged<Comment>> {
    const { comments, posts } = this.dependencies
    const { post, reader } = await posts.readFor(caller, postId, client)
    const viewer = viewerOf(reader, post)
    const page = await fetchPaged(
      request,
      { rows: (window: RowWindow) => comments.threadsPage(postId, viewer, order, window), count: () => comments.totalSeen(postId, null, viewer), keyOf: (row) => row.id },
      (row) => row,
    )
    const withReplies = page.items.filter((row) => Number(row.reply_count) > 0).map((row) => row.id)
    const replies = await comments.firstRepliesOf(withReplies, FIRST_REPLIES, viewer)
    const shown = await this.withReactions([...page.items, ...replies].map((row) => asSeenBy(row, viewer)), viewer)
    const byId = new Map(shown.map((comment) => [comment.id, comment]))
    const byThread = new Map<number, Comment[]>()
    for (const reply of replies) byThread.set(reply.parent_id!, [...(byThread.get(reply.parent_id!) ?? []), byId.get(reply.id)!])
    return { ...page, items: page.items.map((row) => ({ ...byId.get(row.id)!, replies: byThread.get(row.id) ?? [] })) }
  }

  /** One comment, as the caller reads it; 404 unless they may read its post. */
  async get(caller: PostCaller | null, id: number, client: ClientInfo): Promise<Comment> {
    const { row, viewer } = await this.inContext(caller, id, client)
    return this.seenWithReactions(row, viewer)
  }

  /** One comment as the caller reads it, with its post (what a reaction to it decides on). */
  async getInPost(caller: PostCaller | null, id: number, client: ClientInfo): Promise<{ comment: Comment; post: Post }> {
    const { row, post, viewer } = await this.inContext(caller, id, client)
    return { comment: asSeenBy(row, viewer), post }
  }

  /** A page of a comment's replies, oldest first. */
  async listReplies(caller: PostCaller | null, id: number, request: PageRequest, client: ClientInfo): Promise<Paged<Comment>> {
    const { comments } = this.dependencies
    const { row, viewer } = await this.inContext(caller, id, client)
    const page = await fetchPaged(
      request,
      { rows: (window: RowWindow) => comments.repliesPage(row.id, viewer, window), count: () => comments.totalSeen(row.post_id, row.id, viewer), keyOf: (reply) => reply.id },
      (reply) => asSeenBy(reply, viewer),
    )
    return { ...page, items: await this.withReactions(page.items, viewer) }
  }

  /**
   * Ranked search of comments (docs/api.md "Search"): those the caller reads whole (visible ones,
   * and their own hidden ones) on the posts they may list, narrowed as a list of posts narrows
   * them, best first (ties newest first), with the total for this caller and each hit's best
   * passage marked.
   */
  async search(caller: PostCaller | null, text: string, asked: PostFilter, request: SearchPageRequest, client: ClientInfo): Promise<{ hits: CommentHit[]; total: number; next: SearchAfter | undefined }> {
    const query = searchQueryOf(text)
    const { comments, posts, searchIndex } = this.dependencies
    const scope = await posts.scopeOf(caller, asked)
    const stemmed = await searchIndex.stemQuery(query)
    const [found, total] = await Promise.all([searchIndex.searchComments(scope, query, stemmed, hitWindow(request)), searchIndex.countCommentHits(scope, query, stemmed)])
    const { shown, next } = pageOfHits(found, request.limit)
    const ids = shown.map((hit) => hit.id)
    const [rows, snippets] = await Promise.all([comments.findComments(ids), searchIndex.commentSnippetsOf(ids, query, stemmed)])
    // As a thread reads to a reader who moderates nothing: the search finds no one else's hidden comment.
    const viewer: CommentViewer = { userId: scope.reader.userId, moderates: false }
    const read = new Map((await this.withReactions(rows.map((row) => asSeenBy(row, viewer)), viewer)).map((comment) => [comment.id, comment]))
    const hits = shown.flatMap((hit) => {
      const comment = read.get(hit.id)
      const snippet = snippets.get(hit.id)
      return comment && snippet !== undefined ? [{ comment, rank: hit.rank, snippet }] : []
    })
    await posts.recordListingIn(scope, caller, rows.map((row) => row.post_id), client)
    return { hits, total, next }
  }

  /**
   * Writes every comment's index entry again (`npm run rebuild-search-index`), a batch per unit of
   * work, while the service runs. How many comments it read.
   */
  async rebuildSearchIndex(batch = 500): Promise<number> {
    const { searchIndex, unitOfWork } = this.dependencies
    let written = 0
    for (let after = 0; ; ) {
      const count = await unitOfWork.run(async (unit) => {
        const rows = await searchIndex.in(unit).commentsToIndex(after, batch)
        for (const row of rows) await searchIndex.in(unit).indexCommentText(row)
        after = rows.at(-1)?.id ?? after
        return rows.length
      })
      written += count
      if (count < batch) return written
    }
  }

  /** A comment on the post, or a reply: the caller must read it and the policy let them comment. */
  async create(caller: PostCaller, postId: number, input: CommentInput, client: ClientInfo): Promise<Comment> {
    this.assertMayWrite(caller)
    const { comments, posts, unitOfWork } = this.dependencies
    const { post, reader } = await posts.readFor(caller, postId, client)
    if (!mayComment(reader, post)) throw commentsClosed()
    const viewer = viewerOf(reader, post)
    let parentId: number | null = null
    // Nobody answers the post, or a comment, of someone who blocked them.
    const owners = [post.authorId]
    if (input.parentId !== undefined) {
      const parent = await comments.findComment(input.parentId)
      // Only a comment of this post that the caller reads whole may be answered.
      if (!parent || parent.post_id !== postId || isTombstone(parent) || asSeenBy(parent, viewer).text === null) commentNotFound()
      parentId = parent.parent_id ?? parent.id
      if (parent.author_id !== null) owners.push(parent.author_id)
    }
    await this.dependencies.blocks.assertNotBlocked(owners, caller.id)
    // Who hears of it by mail: the post's author, and the answered comment's while they may still read the post.
    const recipients = [post.authorId]
    if (owners.length > 1 && (await this.dependencies.posts.canRead({ id: owners[1]!, isSuperuser: false }, postId, client))) recipients.push(owners[1]!)
    const created = await unitOfWork.run(async (unit) => {
      const row = await comments.in(unit).insertComment({ post_id: postId, author_id: caller.id, parent_id: parentId, text: input.text })
      if (!row) return undefined
      await this.dependencies.searchIndex.in(unit).indexCommentText({ id: row.id, text: row.text, language: post.language })
      await this.changed(unit, 'comment.created', row, post)
      await this.dependencies.notifications.replied(unit, { postId, postTitle: post.title, replierId: caller.id, text: input.text, recipients })
      return row
    })
    // The caller's account was deleted while the request was on its way.
    if (!created) throw notAuthenticated()
    return asSeenBy(created, viewer)
  }

  /** Its author changes its words (a hidden one stays hidden); `edited_at` says when. */
  async edit(caller: PostCaller, id: number, text: string, client: ClientInfo): Promise<Comment> {
    this.assertMayWrite(caller)
    const { updated, viewer } = await this.change(caller, id, client, async (unit, { row, post, viewer }) => {
      if (row.author_id !== caller.id) throw forbidden()
      const updated = await this.dependencies.comments.in(unit).updateComment(id, { text, edited_at: nowIso() })
      await this.dependencies.searchIndex.in(unit).indexCommentText({ id, text, language: post.language })
      await this.changed(unit, 'comment.updated', updated!, post)
      return { updated: updated!, viewer }
    })
    // Read once the change committed: its reactions are nothing of the unit's.
    return this.seenWithReactions(updated, viewer)
  }

  /** Its author deletes it (its words are erased, its place kept); a superuser removes anyone's. */
  async delete(caller: PostCaller, id: number, client: ClientInfo): Promise<void> {
    await this.change(caller, id, client, async (unit, { row, post }) => {
      const own = row.author_id === caller.id
      if (!own && !caller.isSuperuser) throw forbidden()
      const updated = await this.dependencies.comments.in(unit).updateComment(id, { text: ERASED, status: own ? 'deleted' : 'removed', hidden_reason: null, moderated_by: own ? null : caller.id })
      await this.dependencies.searchIndex.in(unit).indexCommentText({ id, text: ERASED, language: post.language })
      if (!own) await this.dependencies.securityEvents.record('comment_removed', caller.id, client, { unit, postId: post.id, details: { comment_id: id } })
      await this.changed(unit, 'comment.deleted', updated!, post)
    })
  }

  /** A moderator of its post hides it, with the reason its author is shown. */
  async hide(caller: PostCaller, id: number, reason: string, client: ClientInfo): Promise<Comment> {
    return this.moderate(caller, id, client, { status: 'hidden', hidden_reason: reason, moderated_by: caller.id }, 'comment_hidden', { comment_id: id, reason })
  }

  /** A moderator of its post shows a hidden comment again. */
  async unhide(caller: PostCaller, id: number, client: ClientInfo): Promise<Comment> {
    return this.moderate(caller, id, client, { status: 'visible', hidden_reason: null, moderated_by: caller.id }, 'comment_unhidden', { comment_id: id })
  }

  /** Every comment of an author's, oldest first, whole as they wrote it: their data export, a page in memory at a time. */
  async *everyCommentOf(authorId: number): AsyncGenerator<Comment> {
    const rows = everyRowAfter((after: number, limit) => this.dependencies.comments.commentsOfAuthorAfter(authorId, after, limit), (row) => row.id, 0)
    for await (const row of rows) {
      const { hiddenWithAuthor: _hidden, ...comment } = toStoredComment(row)
      yield comment
    }
  }

  /** An author's comments disappear with their account, in the deletion's unit. */
  async hideAllOf(unit: Unit, authorId: number): Promise<void> {
    await this.dependencies.comments.in(unit).hideCommentsOf(authorId)
  }

  /** Only the comments hidden with the account (at `deletedAt` or later) come back with it. */
  async restoreHiddenWith(unit: Unit, authorId: number, deletedAt: string | null): Promise<void> {
    if (deletedAt !== null) await this.dependencies.comments.in(unit).unhideCommentsOf(authorId, deletedAt)
  }

  /** An account removed for good: what it still holds is erased, in the removal's unit (anonymize hands the comments others read over first). */
  async eraseAllOf(unit: Unit, authorId: number): Promise<void> {
    await this.dependencies.searchIndex.in(unit).unindexCommentsOf(authorId)
    await this.dependencies.comments.in(unit).eraseCommentsOf(authorId)
  }

  /** An account removed with ACCOUNT_DELETION_CONTENT=anonymize: its comments stay, under the "Deleted user" author. */
  async handOverOf(unit: Unit, fromAuthorId: number, toAuthorId: number): Promise<void> {
    await this.dependencies.comments.in(unit).handOverCommentsOf(fromAuthorId, toAuthorId)
  }

  private async moderate(caller: PostCaller, id: number, client: ClientInfo, changes: { status: 'hidden' | 'visible'; hidden_reason: string | null; moderated_by: number }, event: 'comment_hidden' | 'comment_unhidden', details: Record<string, unknown>): Promise<Comment> {
    if (caller.readOnly) throw forbidden()
    const { updated, viewer } = await this.change(caller, id, client, async (unit, { row, post, viewer }) => {
      if (!viewer.moderates) throw forbidden()
      if (row.status !== 'visible' && row.status !== 'hidden') commentNotFound()
      const updated = await this.dependencies.comments.in(unit).updateComment(id, changes)
      await this.dependencies.securityEvents.record(event, caller.id, client, { unit, postId: post.id, details })
      await this.changed(unit, changes.status === 'hidden' ? 'comment.hidden' : 'comment.updated', updated!, post)
      return { updated: updated!, viewer }
    })
    return this.seenWithReactions(updated, viewer)
  }

  /** A change to a live comment of a post the caller reads: decided on the comment as it is inside the unit. */
  private async change<T>(caller: PostCaller, id: number, client: ClientInfo, apply: (unit: Unit, context: InContext) => Promise<T>): Promise<T> {
    if (caller.readOnly) throw forbidden()
    const { post, reader, viewer } = await this.inContext(caller, id, client)
    return this.dependencies.unitOfWork.run(async (unit) => {
      const row = await this.dependencies.comments.in(unit).findCommentForChange(id)
      if (!row || isTombstone(row) || row.post_id !== post.id) commentNotFound()
      return apply(unit, { row, post, reader, viewer })
    })
  }

  /** The comment, its post and the caller as its reader: 404 unless the policy lets them read the post. */
  private async inContext(caller: PostCaller | null, id: number, client: ClientInfo): Promise<InContext> {
    const row = await this.dependencies.comments.findComment(id)
    if (!row) commentNotFound()
    let read: { post: Post; reader: Reader }
    try {
      read = await this.dependencies.posts.readFor(caller, row.post_id, client)
    } catch (error) {
      // A comment on a post the caller may not read does not exist for them.
      if (error instanceof DomainError && error.code === 'post_not_found') commentNotFound()
      throw error
    }
    return { row, post: read.post, reader: read.reader, viewer: viewerOf(read.reader, read.post) }
  }

  /** The comments with their reactions for the viewer, read in one query (none when none has any); a tombstone shows none. */
  private async withReactions(comments: readonly Comment[], viewer: CommentViewer): Promise<Comment[]> {
    const readable = comments.filter((comment) => comment.text !== null)
    const summaries = await this.dependencies.reactions.summariesOf('comment', readable, viewer.userId)
    return comments.map((comment) => (comment.text === null ? comment : { ...comment, reactions: summaries.get(comment.id) }))
  }

  private async seenWithReactions(row: CommentRow, viewer: CommentViewer): Promise<Comment> {
    return (await this.withReactions([asSeenBy(row, viewer)], viewer))[0]!
  }

  /**
   * Records the change in its unit. The event carries the comment whole while it is visible, and a
   * tombstone otherwise (deleted, removed, hidden: an edit of a hidden comment included), since
   * everyone who may list the post hears it.
   */
  private async changed(unit: Unit, type: CommentEventType, row: CommentRow, post: Post): Promise<void> {
    const stored = toStoredComment(row)
    const whole = stored.status === 'visible' && !stored.hiddenWithAuthor
    const shown = asSeenBy(row, whole ? { userId: stored.authorId, moderates: true } : { userId: null, moderates: false })
    await this.dependencies.changes.commentChanged(unit, type, shown, { authorId: stored.authorId, postId: post.id })
  }

  private assertMayWrite(writer: PostCaller): void {
    if (writer.readOnly) throw forbidden()
    assertVerifiedWriter(writer, this.dependencies.options.requireVerifiedEmail)
  }
}
