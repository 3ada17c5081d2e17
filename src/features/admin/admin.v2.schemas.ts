// Shapes of the superuser endpoints under /api/v2/admin (the admin console reads them).
import { Type } from 'typebox'

import { PageNumber } from '../../shared/page-number.js'
import type { FieldShapes } from '../content-fields/index.js'

const StoreStatus = Type.Union([Type.Literal('ok'), Type.Literal('unavailable'), Type.Literal('not_configured')])

export const OverviewRead = Type.Object(
  {
    users: Type.Integer({ description: 'Live users' }),
    posts: Type.Integer({ description: 'Live posts' }),
    days: Type.Array(
      Type.Object({
        day: Type.String({ format: 'date', description: 'A UTC day' }),
        sign_ups: Type.Integer({ description: 'Accounts created that day' }),
        logins: Type.Integer({ description: 'Successful logins that day' }),
        captcha_failures: Type.Integer({ description: 'CAPTCHA tokens refused that day' }),
        breached_passwords: Type.Integer({ description: 'New passwords refused as breached that day' }),
        blocked_domains: Type.Integer({ description: 'Addresses refused for their domain that day' }),
      }),
      { description: 'The last 7 UTC days, oldest first' },
    ),
    database: Type.Object({ dialect: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]), status: StoreStatus }),
    redis: StoreStatus,
  },
  { title: 'AdminOverview' },
)

const ManagedUserFields = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    username: Type.String(),
    email: Type.String(),
    age: Type.Union([Type.Integer(), Type.Null()]),
    avatar_url: Type.String(),
    subscription_tier: Type.Union([Type.String(), Type.Null()]),
    is_active: Type.Boolean(),
    is_superuser: Type.Boolean(),
    is_verified: Type.Boolean(),
    is_deleted: Type.Boolean({ description: 'Soft-deleted: hidden from every other read, restorable' }),
    deleted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    banned_until: Type.Union([Type.String({ description: 'When the ban lifts (ISO 8601), or "forever"' }), Type.Null()], {
      description: 'Null when the account is not banned (a ban whose time has passed reads null)',
    }),
    ban_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the account is banned, as the superuser wrote it (never shown to its owner)' }),
  },
  { title: 'ManagedUserColumns' },
)

/** The superusers' read of a user: every column, and every custom field (the deployment's declaration, server ones too). */
export const managedUserRead = (fields: FieldShapes) => Type.Object({ ...ManagedUserFields.properties, fields: fields.read }, { title: 'ManagedUserRead' })

const literals = <T extends string>(values: readonly T[]) => values.map((value) => Type.Literal(value))

export const UserDirectoryQuery = Type.Object({
  page: PageNumber,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  search: Type.Optional(
    Type.String({ maxLength: 254, description: 'Text in the name or username (case-insensitive), or a whole email address (any text with @)' }),
  ),
  status: Type.Union(literals(['live', 'deleted', 'all'] as const), { default: 'live', description: 'live, deleted (soft-deleted) or all' }),
  sort: Type.Union(literals(['id', '-id', 'username', '-username', 'email', '-email'] as const), { default: 'id', description: 'id, username or email; a leading - sorts descending' }),
})
