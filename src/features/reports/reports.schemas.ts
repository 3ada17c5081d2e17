// The report resource's shapes.
import { Type } from 'typebox'

import { CursorPageEnvelopeSchema, CursorParameter } from '../../api/common/page-envelope.js'
import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'
import { REPORT_ACTIONS, REPORT_REASONS, REPORT_TARGETS } from './report.js'

const literals = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>(Type.Union(values.map((value) => Type.Literal(value)), { description }))

const Target = literals(REPORT_TARGETS, 'What is reported')
const Reason = literals(REPORT_REASONS, 'Why')
const Status = literals(['open', 'dismissed', 'actioned'] as const, 'open until a moderator resolves it')

export const ReportCreate = Type.Object(
  { target: Target, id: RecordId, reason: Reason, note: Type.Optional(Type.String({ maxLength: 1000, description: 'What the moderators should know' })) },
  { additionalProperties: false, title: 'ReportCreate' },
)

export const ReportRead = Type.Object(
  {
    id: Type.Integer(),
    target: Target,
    target_id: Type.Integer(),
    target_owner_id: Type.Integer({ description: 'The author of the post or comment, or the user reported' }),
    org_id: Type.Union([Type.Integer(), Type.Null()], { description: "The organization whose admins' queue it is in, besides superusers'" }),
    reason: Reason,
    note: Type.Union([Type.String(), Type.Null()]),
    reporter_id: Type.Integer(),
    status: Status,
    action: Type.Union([literals(REPORT_ACTIONS, 'What resolved it'), Type.Null()]),
    resolved_by: Type.Union([Type.Integer(), Type.Null()]),
    resolved_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ReportRead' },
)

/** What the reporter is told back: the report, without who else it names. */
export const ReportReceipt = Type.Object({ id: Type.Integer(), target: Target, target_id: Type.Integer(), reason: Reason, status: Status, created_at: Type.String({ format: 'date-time' }) }, { title: 'ReportReceipt' })

export const ReportIdParams = Type.Object({ report_id: RecordId })
export const ReportQueueQuery = Type.Object({
  page: PageNumber,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(CursorParameter),
  status: Type.Union([Type.Literal('open'), Type.Literal('dismissed'), Type.Literal('actioned')], { default: 'open' }),
})
export const ReportPage = CursorPageEnvelopeSchema(ReportRead, 'ReportPage')
export const ReportResolve = Type.Object(
  { action: literals(REPORT_ACTIONS, "dismiss; hide (a comment hidden, a post deleted); remove (for good); ban (its author). An organization's admins dismiss or hide.") },
  { additionalProperties: false, title: 'ReportResolve' },
)
