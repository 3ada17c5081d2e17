// The security event log: logins, logouts, token reuse, password and email changes, session
// revocations and permanent deletions, each with who, when and from where. Kept
// SECURITY_EVENT_RETENTION_DAYS, readable by superusers (all) and by each user (their own).
import { randomUUID } from 'node:crypto'

import type { Unit } from '../../db/unit-of-work.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser } from '../../shared/errors.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { fetchPaged } from '../../shared/paging.js'
import { nowIso } from '../../shared/timestamps.js'
import type { ClientInfo, EventMethod, SecurityEvent, SecurityEventFilter, SecurityEventType } from './security-event.js'
import { toSecurityEvent } from './security-event.js'
import type { SecurityEventsRepository } from './security-events.repository.js'

const USER_AGENT_MAX_LENGTH = 512

export class SecurityEventService {
  constructor(
    private readonly repository: SecurityEventsRepository,
    private readonly retentionDays: number,
  ) {}

  /**
   * Records an event now, or inside `unit` when another feature's change reports it (a domain
   * event). A login names its `method`. The one writer of the log: when someone other than the
   * user acts (`actorId`, or the superuser behind an impersonation the client carries), the
   * event names them as `actor_id` and keeps their address and browser out of the user's log
   * (and the organization's).
   */
  async record(
    type: SecurityEventType,
    userId: number | null,
    client: ClientInfo | null,
    options: { unit?: Unit; method?: EventMethod; orgId?: number; postId?: number; actorId?: number; details?: Record<string, unknown> } = {},
  ): Promise<void> {
    const { unit, method, orgId, postId, details } = options
    const actorId = options.actorId ?? client?.actorId
    const actorsClient = actorId !== undefined && actorId !== userId
    await (unit ? this.repository.in(unit) : this.repository).insertSecurityEvent({
      id: randomUUID(),
      user_id: userId,
      type,
      method: method ?? null,
      ip: actorsClient ? null : (client?.ip ?? null),
      user_agent: actorsClient ? null : (client?.userAgent?.slice(0, USER_AGENT_MAX_LENGTH) ?? null),
      org_id: orgId ?? null,
      post_id: postId ?? null,
      actor_id: actorsClient ? actorId : null,
      details: details === undefined ? null : JSON.stringify(details),
      created_at: nowIso(),
    })
  }

  /** Every user's events: superusers only. */
  listAll(actor: Actor, filter: SecurityEventFilter, request: PageRequest): Promise<Paged<SecurityEvent>> {
    assertSuperuser(actor)
    return this.list(filter, request)
  }

  /** The actor's own events. */
  listOwn(actor: Actor, filter: Omit<SecurityEventFilter, 'userId'>, request: PageRequest): Promise<Paged<SecurityEvent>> {
    return this.list({ ...filter, userId: actor.id }, request)
  }

  /** An organization's own log; its feature checks who may read it. */
  listOfOrg(orgId: number, filter: Omit<SecurityEventFilter, 'orgId'>, request: PageRequest): Promise<Paged<SecurityEvent>> {
    return this.list({ ...filter, orgId }, request)
  }

  private list(filter: SecurityEventFilter, request: PageRequest): Promise<Paged<SecurityEvent>> {
    // Ordered by time, not by one numeric key: offset paging only.
    const rows = ({ offset, limit }: RowWindow) => this.repository.listSecurityEvents(filter, offset, limit)
    return fetchPaged(request, { rows, count: () => this.repository.countSecurityEvents(filter), keyOf: () => 0 }, toSecurityEvent)
  }

  prune(): Promise<void> {
    return this.repository.deleteSecurityEventsBefore(new Date(Date.now() - this.retentionDays * 86_400_000).toISOString())
  }
}
