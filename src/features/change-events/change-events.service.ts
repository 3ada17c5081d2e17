// Every change to a user or a post becomes a change event: the users and posts services call
// ChangeLog.userChanged and postChanged inside the change's unit of work, and the event row is
// written there, so a change that commits always has its event and one that rolls back never
// does. Webhooks receive the events through forwardPending(); realtime streams read them by id.
import { randomUUID } from 'node:crypto'

import type { Unit, UnitOfWork } from '../../db/unit-of-work.js'
import { afterCommit } from '../../db/unit-of-work.js'
import { nowIso } from '../../shared/timestamps.js'
import type { Comment, CommentChangeLog, CommentEventType } from '../comments/index.js'
import type { FileChangeLog, FileEventType, FileView } from '../files/index.js'
import type { Membership, MembershipEventType, Org, OrgChangeLog, OrgOnlyEventType } from '../orgs/index.js'
import type { Post, PostChangeLog, PostEventType } from '../posts/index.js'
import type { User, UserChangeLog, UserEventType } from '../users/index.js'
import type { ChangeEvent, ChangeEventType } from './change-event.js'
import { toChangeEvent } from './change-event.js'
import type { ChangeEventsRepository } from './change-events.repository.js'

/** How a user, a post, an organization and a membership read in an event's `data` (version 2's read shapes, given by the API layer). */
export interface ChangeEventShapes {
  user(user: User): unknown
  post(post: Post): unknown
  org(org: Org): unknown
  membership(membership: Membership): unknown
  file(file: FileView): unknown
  comment(comment: Comment): unknown
}

const FORWARD_BATCH = 100

/** What the users and posts features call inside the unit of work of a change (each declares its half), to record it with the change. */
export type ChangeLog = UserChangeLog & PostChangeLog & CommentChangeLog & OrgChangeLog & FileChangeLog

/** Takes a batch of change events inside the unit that marks them forwarded (webhooks make their deliveries). */
export type ForwardEvents = (unit: Unit, events: ChangeEvent[]) => Promise<void>

export class ChangeEventService implements ChangeLog {
  private readonly listeners = new Set<() => void>()

  constructor(
    private readonly events: ChangeEventsRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly shapes: ChangeEventShapes,
    private readonly options: { retentionMinutes: number },
  ) {}

  userChanged(unit: Unit, type: UserEventType, user: User): Promise<void> {
    return this.record(unit, type, `user:${user.id}`, user.id, this.shapes.user(user))
  }

  postChanged(unit: Unit, type: PostEventType, post: Post): Promise<void> {
    return this.record(unit, type, `post:${post.id}`, post.authorId, this.shapes.post(post))
  }

  /** A post's reactions changed (coalesced: one event for however many came): the post, with its counts by kind. */
  postReactionsChanged(unit: Unit, post: Post, counts: Record<string, number>): Promise<void> {
    return this.record(unit, 'post.reactions_changed', `post:${post.id}`, post.authorId, { ...(this.shapes.post(post) as object), reaction_counts: counts })
  }

  /** A comment's events are its author's; who hears them is who may list its post (the data's post_id). */
  commentChanged(unit: Unit, type: CommentEventType, comment: Comment, about: { authorId: number | null; postId: number }): Promise<void> {
    return this.record(unit, type, `comment:${comment.id}`, about.authorId, this.shapes.comment(comment))
  }

  /** An organization's events name it as their subject, so one endpoint receives them in order. */
  orgChanged(unit: Unit, type: OrgOnlyEventType, org: Org): Promise<void> {
    return this.record(unit, type, `org:${org.id}`, null, this.shapes.org(org))
  }

  membershipChanged(unit: Unit, type: MembershipEventType, membership: Membership): Promise<void> {
    return this.record(unit, type, `org:${membership.orgId}`, membership.userId, this.shapes.membership(membership))
  }

  /** A file's events are its owner's (and superusers'), as a user's are. */
  fileChanged(unit: Unit, type: FileEventType, file: FileView): Promise<void> {
    return this.record(unit, type, `file:${file.id}`, file.ownerId, this.shapes.file(file))
  }

  /** Calls `listener` in this process after each commit that wrote events; returns the unsubscribe. */
  onCommitted(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Hands the oldest unforwarded events to `forward` (webhooks make deliveries of them) and marks
   * them forwarded, in one unit: events are forwarded once, by one process. Says whether it took
   * a full batch (more may be waiting).
   */
  forwardPending(forward: ForwardEvents): Promise<boolean> {
    return this.unitOfWork.run(async (unit) => {
      const events = this.events.in(unit)
      const rows = await events.lockUnforwarded(FORWARD_BATCH)
      if (rows.length === 0) return false
      await forward(unit, rows.map(toChangeEvent))
      await events.markForwarded(rows.map((row) => Number(row.id)))
      return rows.length === FORWARD_BATCH
    })
  }

  /** Events after `afterId`, oldest first. */
  async listAfter(afterId: number, limit: number): Promise<ChangeEvent[]> {
    return (await this.events.listEventsAfter(afterId, limit)).map(toChangeEvent)
  }

  async listByIds(ids: number[]): Promise<ChangeEvent[]> {
    return (await this.events.listEventsByIds(ids)).map(toChangeEvent)
  }

  latestId(): Promise<number> {
    return this.events.latestEventId()
  }

  oldestId(): Promise<number | undefined> {
    return this.events.oldestEventId()
  }

  /** Forwarded events past the retention window are dropped. */
  prune(): Promise<void> {
    return this.events.deleteForwardedBefore(new Date(Date.now() - this.options.retentionMinutes * 60_000).toISOString())
  }

  private async record(unit: Unit, type: ChangeEventType, subject: string, userId: number | null, data: unknown): Promise<void> {
    await this.events.in(unit).insertChangeEvent({ message_id: `msg_${randomUUID()}`, type, subject, user_id: userId, data: JSON.stringify(data), created_at: nowIso() })
    afterCommit(unit, () => {
      for (const listener of this.listeners) listener()
    })
  }
}
