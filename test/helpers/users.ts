// Seeding and logging in, shared by every test file.
import type { FastifyInstance } from 'fastify'

import type { User } from '../../src/features/users/index.js'

export const V1 = '/services/v1'
export const V2 = '/api/v2'
export const DEFAULT_PASSWORD = 'correct horse battery'

let sequence = 0

export interface NewUserFields {
  name: string
  username: string
  email: string
  password: string
  age?: number
}

/** Unique, valid fields for a new user. */
export function userFields(overrides: Partial<NewUserFields> = {}): NewUserFields {
  sequence += 1
  const tag = `${process.pid % 10000}_${sequence}`
  return {
    name: `User ${tag}`,
    username: `user_${tag}`,
    email: `user_${tag}@example.com`,
    password: DEFAULT_PASSWORD,
    ...overrides,
  }
}

/**
 * Creates a user through the service (not the API), optionally as a superuser, and with
 * `verified` as one whose owner has proved the mailbox (else the first email sign-in or reset
 * adopts the account, ending what it holds: AccountRecovery).
 */
export async function seedUser(
  app: FastifyInstance,
  overrides: Partial<NewUserFields> = {},
  options: { superuser?: boolean; verified?: boolean } = {},
): Promise<User & { password: string }> {
  const fields = userFields(overrides)
  const user = await app.services.users.create(fields, { superuser: options.superuser ?? false })
  if (options.verified) await app.services.users.markEmailVerified(user.id, user.email)
  return { ...user, isVerified: options.verified ?? false, password: fields.password }
}

export interface LoggedIn {
  user: User & { password: string }
  accessToken: string
  refreshToken: string
  headers: { authorization: string }
}

export async function login(app: FastifyInstance, username: string, password: string, prefix = V1) {
  const response = await app.inject({ method: 'POST', url: `${prefix}/login`, payload: { username, password } })
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`)
  const body = response.json() as { access_token: string; refresh_token: string }
  return { accessToken: body.access_token, refreshToken: body.refresh_token }
}

/** Seeds a user and logs in as them through the API. */
export async function seedAndLogin(
  app: FastifyInstance,
  overrides: Partial<NewUserFields> = {},
  options: { superuser?: boolean; verified?: boolean } = {},
): Promise<LoggedIn> {
  const user = await seedUser(app, overrides, options)
  const tokens = await login(app, user.username, user.password)
  return { user, ...tokens, headers: { authorization: `Bearer ${tokens.accessToken}` } }
}
