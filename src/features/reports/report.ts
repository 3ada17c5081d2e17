// A report as services take and return it.
import { toIsoString } from '../../shared/timestamps.js'
import type { ReportRow } from './reports.table.js'

export const REPORT_TARGETS = ['post', 'comment', 'user'] as const
export type ReportTarget = (typeof REPORT_TARGETS)[number]
export const REPORT_REASONS = ['spam', 'harassment', 'hate', 'violence', 'sexual', 'self_harm', 'misinformation', 'other'] as const
export type ReportReason = (typeof REPORT_REASONS)[number]
/** dismiss leaves the content be; hide takes it out of sight (a hidden comment, a deleted post); remove deletes it for good; ban bans its author. */
export const REPORT_ACTIONS = ['dismiss', 'hide', 'remove', 'ban'] as const
export type ReportAction = (typeof REPORT_ACTIONS)[number]
export type ReportStatus = 'open' | 'dismissed' | 'actioned'

export interface Report {
  id: number
  reporterId: number
  target: ReportTarget
  targetId: number
  targetOwnerId: number
  orgId: number | null
  reason: ReportReason
  note: string | null
  status: ReportStatus
  action: ReportAction | null
  resolvedBy: number | null
  resolvedAt: string | null
  createdAt: string
}

export function toReport(row: ReportRow): Report {
  return {
    id: row.id,
    reporterId: row.reporter_id,
    target: row.target as ReportTarget,
    targetId: row.target_id,
    targetOwnerId: row.target_owner_id,
    orgId: row.org_id === null ? null : Number(row.org_id),
    reason: row.reason as ReportReason,
    note: row.note,
    status: row.status as ReportStatus,
    action: row.action as ReportAction | null,
    resolvedBy: row.resolved_by,
    resolvedAt: row.resolved_at === null ? null : toIsoString(row.resolved_at),
    createdAt: toIsoString(row.created_at),
  }
}
