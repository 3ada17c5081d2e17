// The user resource's shapes in version 1: UserRead is exactly the six fields of the
// specification; the field rules are the users feature's (user-fields.ts).
import { Type } from 'typebox'

import { PageSize } from '../../api/common/params.schemas.js'
import { PageNumber } from '../../shared/page-number.js'
import { Age, ImageUrl, NewUserFields, UserUpdateFields } from './user-fields.js'

export const UserRead = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    username: Type.String(),
    email: Type.Optional(Type.String({ description: 'Present for everyone, or, with EMAIL_VISIBILITY=owner, only for the user themselves and superusers' })),
    profile_image_url: Type.String(),
    tier_id: Type.Union([Type.Integer(), Type.Null()]),
  },
  { title: 'UserRead' },
)

export const UserCreate = Type.Object(NewUserFields, { additionalProperties: false, title: 'UserCreate' })

export const UserUpdate = Type.Object(
  { ...UserUpdateFields, profile_image_url: Type.Optional(ImageUrl) },
  { additionalProperties: false, minProperties: 1, title: 'UserUpdate' },
)

export const UserListQuery = Type.Object({ page: PageNumber, items_per_page: PageSize })

export const UserSearchQuery = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 50, description: 'Case-insensitive substring of the name; empty is ignored' })),
  // An empty value means "no filter", so "" is listed before the integer it would otherwise coerce to (0).
  age: Type.Optional(Type.Union([Type.Literal(''), Age], { description: 'Exact age; empty is ignored' })),
  is_active: Type.Boolean({ default: true }),
})

export const AvatarResponse = Type.Object(
  { message: Type.String(), profile_image_url: Type.String() },
  { title: 'AvatarUploaded' },
)
