// Version 2 user shapes: avatar_url instead of profile_image_url, the
// tier's name as subscription_tier, created_at and is_verified; accept_terms on creation.
import { Type } from 'typebox'

import { CursorPageEnvelopeSchema, CursorParameter } from '../../api/common/page-envelope.js'
import { localeTag } from '../../shared/locale.js'
import { PageNumber } from '../../shared/page-number.js'
import type { FieldShapes } from '../content-fields/index.js'
import { filterParameter } from '../content-fields/index.js'
import { TierName } from '../tiers/index.js'
import { Age, ImageUrl, NewUserFields, UserUpdateFields } from './user-fields.js'
import { USER_FILTER } from './user-filter.js'

/** A language (BCP 47: en, de-AT, pt-BR); the service checks it is well-formed and keeps its canonical form. */
const Locale = localeTag("The user's language (BCP 47), which their mail is written in; without it, the browser's Accept-Language")

const UserReadV2 = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    username: Type.String(),
    email: Type.Optional(Type.String({ description: 'Present only for the user themselves and superusers, or for everyone with EMAIL_VISIBILITY=public' })),
    avatar_url: Type.String(),
    subscription_tier: Type.Union([Type.String(), Type.Null()], { description: "The tier's name, or null" }),
    created_at: Type.String({ format: 'date-time' }),
    is_verified: Type.Boolean(),
    locale: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "The user's language (BCP 47), their mail's; null: the default. Present where the email is" })),
  },
  { title: 'UserReadV2' },
)

const UserCreateV2 = Type.Object(
  {
    ...NewUserFields,
    locale: Type.Optional(Locale),
    accept_terms: Type.Literal(true, { description: 'Must be true: the new user accepts the terms of service' }),
  },
  { additionalProperties: false, title: 'UserCreateV2' },
)

const UserUpdateV2 = Type.Object(
  { ...UserUpdateFields, avatar_url: Type.Optional(ImageUrl), locale: Type.Optional(Type.Union([Locale, Type.Null()])) },
  { additionalProperties: false, minProperties: 1, title: 'UserUpdateV2' },
)

export const UserTierUpdateV2 = Type.Object(
  { subscription_tier: Type.Union([TierName, Type.Null()]) },
  { additionalProperties: false, title: 'UserTierUpdateV2' },
)

/**
 * Version 2's user shapes with the declared custom fields (CONTENT_SCHEMA's `users`) as their
 * `fields`: every route that answers with a user or takes one builds its schemas here, so no
 * serializer drops a declared field and the OpenAPI document shows them.
 */
export function userShapesV2(fields: FieldShapes) {
  const read = Type.Object({ ...UserReadV2.properties, fields: fields.read }, { title: 'UserReadV2' })
  const create = Type.Object({ ...UserCreateV2.properties, fields: Type.Optional(fields.create) }, { additionalProperties: false, title: 'UserCreateV2' })
  const update = Type.Object({ ...UserUpdateV2.properties, fields: Type.Optional(fields.update) }, { additionalProperties: false, minProperties: 1, title: 'UserUpdateV2' })
  return { read, create, update, page: CursorPageEnvelopeSchema(read, 'UserPageV2') }
}

/** Every v2 list: page, limit (1-100), search (at most 50 characters). */
export const ListQueryV2 = Type.Object({
  page: PageNumber,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
  search: Type.Optional(Type.String({ maxLength: 50, description: 'Case-insensitive substring of the name or username' })),
  cursor: Type.Optional(CursorParameter),
})

const UserFilter = Type.Optional(filterParameter(USER_FILTER, 'id = 12 || fields.team = "core"'))

/** GET /users: every v2 list's query, and `filter`. */
export const UserListQueryV2 = Type.Object({
  ...ListQueryV2.properties,
  filter: UserFilter,
})

/** GET /users/search: the list's query, and the search's own narrowing. */
export const UserSearchQueryV2 = Type.Object({
  ...ListQueryV2.properties,
  filter: UserFilter,
  name: Type.Optional(Type.String({ maxLength: 50, description: 'Case-insensitive substring of the name; empty is ignored' })),
  age: Type.Optional(Type.Union([Type.Literal(''), Age], { description: 'Exact age; empty is ignored' })),
  is_active: Type.Boolean({ default: true }),
})

export const AvatarResponseV2 = Type.Object({ message: Type.String(), avatar_url: Type.String() }, { title: 'AvatarUploadedV2' })
