// The orgs feature's public face: what other features and the shared core may use. Everything
// else in this folder is the feature's own (eslint.config.js refuses a reach past this file).
export type { Org, OrgRole, OrgView } from './org.js'
export type { Membership, MembershipEventType, OrgChangeLog, OrgEventType, OrgOnlyEventType } from './org-change-log.js'
export { ORG_EVENT_TYPES } from './org-change-log.js'
export { orgOf, orgRoute } from './org-route.http.js'
export { OrgService } from './orgs.service.js'
export { toMembershipRead, toOrgEventRead, toOrgRead } from './orgs.v2.mappers.js'
export { OrgParams,orgShapesV2 } from './orgs.v2.schemas.js'
