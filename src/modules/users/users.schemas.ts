// The user resource's shapes in version 1 (SPEC.md section 2, DESIGN.md Validation).
import { Type } from 'typebox'
import { PageNumber } from '../../shared/page-number.js'
import { RecordId } from '../../shared/record-id.js'

export const UserIdParams = Type.Object({ user_id: RecordId })

export const Name = Type.String({ minLength: 2, maxLength: 30, examples: ['Ada Lovelace'] })
export const Username = Type.String({ minLength: 2, maxLength: 20, pattern: '^[a-z0-9_]+$', examples: ['ada'] })
export const Email = Type.String({ format: 'email', maxLength: 254, examples: ['ada@example.com'] })
export const Password = Type.String({ minLength: 8, maxLength: 128, examples: ['correct horse battery'] })
export const Age = Type.Integer({ minimum: 0, maximum: 150 })
export const ImageUrl = Type.String({
  maxLength: 2048,
  pattern: '^(https?://|/)\\S*$',
  description: 'An http(s) URL or a path on this server',
})

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

export const UserCreate = Type.Object(
  { name: Name, username: Username, email: Email, password: Password, age: Type.Optional(Age) },
  { additionalProperties: false, title: 'UserCreate' },
)

/** What every version lets a user change about themselves; versions add the image field under their own name. */
export const UserUpdateFields = {
  name: Type.Optional(Name),
  username: Type.Optional(Username),
  email: Type.Optional(Email),
  age: Type.Optional(Age),
}

export const UserUpdate = Type.Object(
  { ...UserUpdateFields, profile_image_url: Type.Optional(ImageUrl) },
  { additionalProperties: false, minProperties: 1, title: 'UserUpdate' },
)

export const PageSize = Type.Integer({ minimum: 1, maximum: 100, default: 10 })

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
