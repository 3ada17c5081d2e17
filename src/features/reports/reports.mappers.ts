// A report's wire shapes.
import type { Report } from './report.js'

export const toReportRead = (report: Report) => ({
  id: report.id,
  target: report.target,
  target_id: report.targetId,
  target_owner_id: report.targetOwnerId,
  org_id: report.orgId,
  reason: report.reason,
  note: report.note,
  reporter_id: report.reporterId,
  status: report.status,
  action: report.action,
  resolved_by: report.resolvedBy,
  resolved_at: report.resolvedAt,
  created_at: report.createdAt,
})

/** A report in its reporter's data export: theirs, with its outcome. */
export const toOwnReportRead = (report: Report) => ({ id: report.id, target: report.target, target_id: report.targetId, reason: report.reason, note: report.note, status: report.status, action: report.action, resolved_at: report.resolvedAt, created_at: report.createdAt })

export const toReportReceipt = (report: Report) => ({ id: report.id, target: report.target, target_id: report.targetId, reason: report.reason, status: report.status, created_at: report.createdAt })
