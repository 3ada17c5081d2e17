// Version 2's shapes of organizations, their members and invitations.
import { Type } from 'typebox'

import { PageEnvelopeSchema } from '../../api/common/page-envelope.js'
import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'
import type { FieldShapes } from '../content-fields/index.js'
import { filterParameter } from '../content-fields/index.js'
import { SecurityEventRead } from '../security-events/index.js'
import { ORG_ROLES, SLUG_MAX, SLUG_PATTERN } from './org.js'
import { ORG_FILTER } from './org-filter.js'

const Role = Type.Union(
  [Type.Literal(ORG_ROLES[0]), Type.Literal(ORG_ROLES[1]), Type.Literal(ORG_ROLES[2])],
  { description: '`owner`: everything, including owners and deletion; `admin`: members, invitations and settings; `member`: reads the organization' },
)
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', examples: ['Acme'] })
const Slug = Type.String({ minLength: 1, maxLength: SLUG_MAX, pattern: SLUG_PATTERN, description: 'Lowercase letters, digits and dashes, with a letter', examples: ['acme'] })
const Timestamp = Type.String({ format: 'date-time' })
const Email = Type.String({ format: 'email', maxLength: 254, examples: ['ada@example.com'] })

export const OrgParams = Type.Object({ org: Type.String({ minLength: 1, maxLength: SLUG_MAX, description: "The organization's id or its slug" }) })
export const MemberParams = Type.Object({ org: OrgParams.properties.org, user_id: RecordId })
export const OrgInvitationParams = Type.Object({ org: OrgParams.properties.org, invitation_id: RecordId })
export const InvitationParams = Type.Object({ invitation_id: RecordId })
export const AdminOrgParams = Type.Object({ org_id: RecordId })

export const OrgPageQuery = Type.Object({ page: PageNumber, limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) })
/** An organization list's query: the page, and `filter`. */
export const OrgListQuery = Type.Object({ ...OrgPageQuery.properties, filter: Type.Optional(filterParameter(ORG_FILTER, 'fields.sector = "news" && name ~ "acme"')) })

const OrgCreate = Type.Object({ name: Name, slug: Type.Optional(Slug) }, { additionalProperties: false, title: 'OrgCreate' })
const OrgUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    slug: Type.Optional(Slug),
    require_mfa: Type.Optional(Type.Boolean({ description: 'Members without a second factor are refused (403 mfa_enrolment_required) on the organization' })),
  },
  { additionalProperties: false, minProperties: 1, title: 'OrgUpdate' },
)

const OrgRead = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    slug: Type.String(),
    require_mfa: Type.Boolean(),
    created_at: Timestamp,
    role: Type.Union([Role, Type.Null()], { description: "The caller's role; null for a superuser who is not a member" }),
  },
  { title: 'OrgRead' },
)

/**
 * Version 2's organization shapes with the declared custom fields (CONTENT_SCHEMA's `orgs`) as
 * their `fields`: every route that answers with an organization or takes one builds its schemas
 * here, so no serializer drops a declared field and the OpenAPI document shows them.
 */
export function orgShapesV2(fields: FieldShapes) {
  const read = Type.Object({ ...OrgRead.properties, fields: fields.read }, { title: 'OrgRead' })
  const create = Type.Object({ ...OrgCreate.properties, fields: fields.requiredOnCreate ? fields.create : Type.Optional(fields.create) }, { additionalProperties: false, title: 'OrgCreate' })
  const update = Type.Object({ ...OrgUpdate.properties, fields: Type.Optional(fields.update) }, { additionalProperties: false, minProperties: 1, title: 'OrgUpdate' })
  return { read, create, update, page: PageEnvelopeSchema(read, 'OrgPage') }
}

export const MemberRead = Type.Object(
  {
    user_id: Type.Integer(),
    name: Type.String(),
    username: Type.String(),
    email: Type.Optional(Type.String({ description: 'Shown to admins and owners, to the member themself, and to everyone with EMAIL_VISIBILITY=public' })),
    role: Role,
    joined_at: Timestamp,
  },
  { title: 'MemberRead' },
)
export const MemberPage = PageEnvelopeSchema(MemberRead, 'MemberPage')
export const RoleUpdate = Type.Object({ role: Role }, { additionalProperties: false, title: 'RoleUpdate' })
export const RoleRead = Type.Object({ user_id: Type.Integer(), role: Role }, { title: 'RoleRead' })

export const InvitationCreate = Type.Object({ email: Email, role: Role }, { additionalProperties: false, title: 'InvitationCreate' })
const InvitationFields = {
  id: Type.Integer(),
  org_id: Type.Integer(),
  email: Type.String(),
  role: Role,
  invited_by: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Timestamp,
  expires_at: Timestamp,
}
export const InvitationRead = Type.Object(InvitationFields, { title: 'InvitationRead' })
export const InvitationPage = PageEnvelopeSchema(InvitationRead, 'InvitationPage')
export const ReceivedInvitationRead = Type.Object(
  { ...InvitationFields, org: Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String() }) },
  { title: 'ReceivedInvitationRead' },
)
export const ReceivedInvitationPage = PageEnvelopeSchema(ReceivedInvitationRead, 'ReceivedInvitationPage')
export const InvitationAccept = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 128, description: "The token of the invitation mail's link" }) },
  { additionalProperties: false, title: 'InvitationAccept' },
)

export const OrgSecurityEventPage = PageEnvelopeSchema(SecurityEventRead, 'OrgSecurityEventPage')
