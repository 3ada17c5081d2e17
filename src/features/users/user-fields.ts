// The rules a user's fields follow (name, username, email, password, age, image URL), as
// schemas: every version's wire shapes build on them, and the first superuser from
// configuration is checked against the same ones (admin-account.ts).
import { Type } from 'typebox'

/** A name is one line: no control characters or line separators (it is written into mails and headers). */
export const Name = Type.String({ minLength: 2, maxLength: 30, pattern: '^[^\\u0000-\\u001F\\u007F\\u0085\\u2028\\u2029]+$', examples: ['Ada Lovelace'] })
export const Username = Type.String({ minLength: 2, maxLength: 20, pattern: '^[a-z0-9_]+$', examples: ['ada'] })
export const Email = Type.String({ format: 'email', maxLength: 254, examples: ['ada@example.com'] })
export const Password = Type.String({ minLength: 8, maxLength: 128, examples: ['correct horse battery'] })
export const Age = Type.Integer({ minimum: 0, maximum: 150 })
export const ImageUrl = Type.String({
  maxLength: 2048,
  pattern: '^(https?://|/)\\S*$',
  description: 'An http(s) URL or a path on this server',
})

/** A new user's fields: what sign-up takes in every version, and what the first superuser must pass. */
export const NewUserFields = { name: Name, username: Username, email: Email, password: Password, age: Type.Optional(Age) }

/** What every version lets a user change about themselves; versions add the image field under their own name. */
export const UserUpdateFields = {
  name: Type.Optional(Name),
  username: Type.Optional(Username),
  email: Type.Optional(Email),
  age: Type.Optional(Age),
  current_password: Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, description: "The user's password: required to change `email` (not when a superuser changes another user's)." }),
  ),
}
