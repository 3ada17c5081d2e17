// Reports: a signed-in user reports a post, a comment or a user they can see, once while the report
// is open. Superusers work the whole queue; an organization's admins and owners the reports of its
// posts and their comments, where they may dismiss or hide. Resolving a report acts on its target
// through the slice that owns it (the comment hidden or removed by the comments slice, the post
// deleted by the posts slice, the author banned by moderation: each records its own security
// event), then resolves every open report on that target, records `report_resolved` for the actor
// and mails each reporter the outcome in their language, in one unit of work.
import type { UnitOfWork } from '../../db/unit-of-work.js'
import type { ClientInfo } from '../../shared/client-info.js'
import { DomainError, forbidden, RuleViolation } from '../../shared/errors.js'
import type { Paged, PageRequest, RowWindow } from '../../shared/paging.js'
import { everyRowAfter, fetchPaged } from '../../shared/paging.js'
import type { CommentService } from '../comments/index.js'
import type { MailPhrase, MailService } from '../mail/index.js'
import { phrase } from '../mail/index.js'
import type { BanService } from '../moderation/index.js'
import type { PostCaller, PostService } from '../posts/index.js'
import type { SecurityEventService } from '../security-events/index.js'
import type { User, UserService } from '../users/index.js'
import type { Report, ReportAction, ReportReason, ReportTarget } from './report.js'
import { toReport } from './report.js'
import type { ReportsRepository } from './reports.repository.js'
import type { ReportRow } from './reports.table.js'

export interface ReportInput {
  target: ReportTarget
  id: number
  reason: ReportReason
  note?: string
}

/** Whose queue: every report (a superuser's), or an organization's (its admins'). */
export type Queue = { kind: 'all' } | { kind: 'org'; orgId: number }

export interface ReportServiceDependencies {
  reports: ReportsRepository
  unitOfWork: UnitOfWork
  posts: Pick<PostService, 'readFor' | 'softDelete' | 'deletePermanently'>
  comments: Pick<CommentService, 'getInPost' | 'hide' | 'delete'>
  users: Pick<UserService, 'get'>
  bans: Pick<BanService, 'ban'>
  mail: Pick<MailService, 'queue'>
  securityEvents: Pick<SecurityEventService, 'record'>
}

const reportNotFound = () => new DomainError('not_found', 'Report not found', { code: 'report_not_found' })
/** What an organization's admins may do with a report in their queue. */
const ORG_ACTIONS: readonly ReportAction[] = ['dismiss', 'hide']
/** What each target can be done with. */
const ACTIONS_OF: Record<ReportTarget, readonly ReportAction[]> = { post: ['dismiss', 'hide', 'remove', 'ban'], comment: ['dismiss', 'hide', 'remove', 'ban'], user: ['dismiss', 'ban'] }

export class ReportService {
  constructor(private readonly dependencies: ReportServiceDependencies) {}

  /** Files a report on something the caller can see (404 as for reading it otherwise); 409 `report_exists` while theirs is open. */
  async report(caller: PostCaller, input: ReportInput, client: ClientInfo): Promise<Report> {
    const { ownerId, orgId } = await this.targetOf(caller, input.target, input.id, client)
    if (ownerId === caller.id) throw new RuleViolation('id', 'You cannot report yourself or what you wrote', 'not_self')
    const row = await this.dependencies.reports.insertReport({ reporter_id: caller.id, target: input.target, target_id: input.id, target_owner_id: ownerId, org_id: orgId, reason: input.reason, note: input.note ?? null })
    if (!row) throw new DomainError('conflict', 'You reported this already', { code: 'report_exists' })
    return toReport(row)
  }

  list(queue: Queue, status: 'open' | 'dismissed' | 'actioned', request: PageRequest): Promise<Paged<Report>> {
    const { reports } = this.dependencies
    const filter = { status, ...(queue.kind === 'org' ? { orgId: queue.orgId } : {}) }
    return fetchPaged(request, { rows: (window: RowWindow) => reports.queuePage(filter, window), count: () => reports.countQueue(filter), keyOf: (row) => row.id }, toReport)
  }

  /** Acts on the report's target and resolves every open report on it; the report as resolved. */
  async resolve(caller: PostCaller, queue: Queue, id: number, action: ReportAction, client: ClientInfo): Promise<Report> {
    const { reports, unitOfWork, mail, securityEvents } = this.dependencies
    const found = await reports.findReport(id)
    if (!found || (queue.kind === 'org' && found.org_id !== queue.orgId)) throw reportNotFound()
    const report = toReport(found)
    if (queue.kind === 'org' && !ORG_ACTIONS.includes(action)) throw forbidden()
    if (!ACTIONS_OF[report.target].includes(action)) throw new RuleViolation('action', `A ${report.target} cannot be given "${action}"`, 'action')
    if (report.status === 'open') await this.act(caller, report, action, client)
    // The reporters are read before the unit (a read beside SQLite's one writer would wait for it);
    // each one's mail is written in the unit that resolves their report.
    const reporters = await this.reportersOf(await reports.openReportersOn(report.target, report.targetId))
    const outcome = phrase(action === 'dismiss' ? 'report.outcome.dismissed' : 'report.outcome.actioned')
    const late: ReportRow[] = []
    const resolved = await unitOfWork.run(async (unit) => {
      const rows = await reports.in(unit).resolveOpenOn(report.target, report.targetId, { status: action === 'dismiss' ? 'dismissed' : 'actioned', action, resolved_by: caller.id })
      await securityEvents.record('report_resolved', caller.id, client, { unit, details: { report_id: id, target: report.target, target_id: report.targetId, action, reports: rows.length } })
      for (const row of rows) {
        const reporter = reporters.get(row.reporter_id)
        if (reporter) await mail.queue(unit, this.outcomeMail(reporter, row, outcome))
        else late.push(row)
      }
      return rows.find((row) => row.id === id)
    })
    // A report filed between the read and the unit: its reporter is told in a unit of its own.
    if (late.length > 0) {
      const lateReporters = await this.reportersOf(late.map((row) => row.reporter_id))
      await unitOfWork.run(async (unit) => {
        for (const row of late) {
          const reporter = lateReporters.get(row.reporter_id)
          if (reporter) await mail.queue(unit, this.outcomeMail(reporter, row, outcome))
        }
      })
    }
    // Resolved already (by another moderator, or with another report on the same target): as it stands.
    return resolved ? toReport(resolved) : toReport((await reports.findReport(id))!)
  }

  /** The live accounts among these reporters (one removed since is told nothing). */
  private async reportersOf(ids: readonly number[]): Promise<Map<number, User>> {
    const found = await Promise.all([...new Set(ids)].map((reporterId) => this.dependencies.users.get(reporterId).catch(() => undefined)))
    return new Map(found.filter((user) => user !== undefined).map((user) => [user.id, user]))
  }

  private outcomeMail(reporter: User, row: ReportRow, outcome: MailPhrase) {
    return { template: 'report-resolved' as const, to: reporter.email, locale: reporter.locale, values: { name: reporter.name, target: phrase(`report.target.${row.target}`), outcome } }
  }

  /** Every report a user filed, for their data export. */
  async *everyReportOf(reporterId: number): AsyncGenerator<Report> {
    for await (const row of everyRowAfter((after: number, limit) => this.dependencies.reports.reportsOfAfter(reporterId, after, limit), (row) => row.id, 0)) yield toReport(row)
  }

  /** Does the action through the slice that owns the target. Something gone already is fine: the report resolves all the same. */
  private async act(caller: PostCaller, report: Report, action: ReportAction, client: ClientInfo): Promise<void> {
    const { posts, comments, bans } = this.dependencies
    const reason = `Reported: ${report.reason}`
    try {
      if (action === 'hide' && report.target === 'comment') await comments.hide(caller, report.targetId, reason, client)
      if (action === 'hide' && report.target === 'post') await posts.softDelete(caller, report.targetId, client)
      if (action === 'remove' && report.target === 'comment') await comments.delete(caller, report.targetId, client)
      if (action === 'remove' && report.target === 'post') await posts.deletePermanently(caller, report.targetId, client)
      if (action === 'ban') await bans.ban({ id: caller.id, isSuperuser: caller.isSuperuser }, report.targetOwnerId, { reason }, client)
    } catch (error) {
      // Gone for a superuser, who reads every post, means gone: the report resolves all the same.
      // For an organization's admin it may mean a post they no longer read (its author made it
      // private): nothing was done, so the report stays open, for a superuser.
      const gone = caller.isSuperuser && error instanceof DomainError && (error.code === 'post_not_found' || error.code === 'comment_not_found')
      if (!gone) throw error
    }
  }

  /** Who owns the target and which organization's queue it is in; 404 as for reading it. */
  private async targetOf(caller: PostCaller, target: ReportTarget, id: number, client: ClientInfo): Promise<{ ownerId: number; orgId: number | null }> {
    if (target === 'post') {
      const { post } = await this.dependencies.posts.readFor(caller, id, client)
      return { ownerId: post.authorId, orgId: post.orgId }
    }
    if (target === 'comment') {
      const { comment, post } = await this.dependencies.comments.getInPost(caller, id, client)
      // A tombstone has nothing left to report.
      if (comment.authorId === null) throw new DomainError('not_found', 'Comment not found', { code: 'comment_not_found' })
      return { ownerId: comment.authorId, orgId: post.orgId }
    }
    const user = await this.dependencies.users.get(id)
    return { ownerId: user.id, orgId: null }
  }
}
