// Shared by the reference servers (bench/bare/): the service's responses, byte for byte apart
// from the Date header and the order of keys and headers (same body, same content type, same
// headers), with nothing else. bench/run.ts compares them with the service's before it measures.
import { randomBytes } from 'node:crypto'

import { hash } from '@node-rs/argon2'
import { importSPKI, jwtVerify } from 'jose'

export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'cache-control': 'no-store',
}

// The service's request id: 16 hex digits for the process, a counter for the request (src/app.ts).
const PROCESS_ID_PREFIX = randomBytes(8).toString('hex')
let requestCounter = 0n
const nextRequestId = () => {
  requestCounter += 1n
  return PROCESS_ID_PREFIX + requestCounter.toString(16).padStart(16, '0')
}

// The IETF RateLimit headers with values as long as the benchmark's budgets give (the
// references count nothing).
const RATE_LIMIT = 1000000000
const RATE_LIMIT_REMAINING = 999999999
const RATE_LIMIT_RESET = 60

/** The headers the service adds to each answer: its request id and the RateLimit headers. */
export const perRequestHeaders = () => ({
  'x-request-id': nextRequestId(),
  'ratelimit-limit': RATE_LIMIT,
  'ratelimit-remaining': RATE_LIMIT_REMAINING,
  'ratelimit-reset': RATE_LIMIT_RESET,
})

// One object literal with every header: spreading a fresh object into another made V8 define
// each property through the runtime (9 µs a request, measured).
export function sendJson(res, status, value) {
  const body = JSON.stringify(value)
  res.writeHead(status, {
    'x-request-id': nextRequestId(),
    'x-content-type-options': SECURITY_HEADERS['x-content-type-options'],
    'x-frame-options': SECURITY_HEADERS['x-frame-options'],
    'content-security-policy': SECURITY_HEADERS['content-security-policy'],
    'strict-transport-security': SECURITY_HEADERS['strict-transport-security'],
    'cache-control': SECURITY_HEADERS['cache-control'],
    'ratelimit-limit': RATE_LIMIT,
    'ratelimit-remaining': RATE_LIMIT_REMAINING,
    'ratelimit-reset': RATE_LIMIT_RESET,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  })
  res.end(body)
}

export const userRead = (row) => ({
  id: row.id,
  name: row.name,
  username: row.username,
  email: row.email,
  profile_image_url: row.profile_image_url,
  tier_id: row.tier_id,
})

export const postRead = (row) => ({
  id: row.id,
  title: row.title,
  text: row.text,
  media_url: row.media_url,
  author_id: row.author_id,
  created_at: row.created_at instanceof Date ? row.created_at.toISOString() : row.created_at,
  updated_at: row.updated_at instanceof Date ? row.updated_at.toISOString() : row.updated_at,
})

export const likeContains = (text) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const USER_COLUMNS = `"users"."id", "users"."name", "users"."username", "users"."email", "users"."profile_image_url",
  "users"."avatar_key", "users"."tier_id", "users"."age", "users"."is_active", "users"."is_superuser", "users"."is_verified",
  "users"."created_at", "users"."updated_at", "tiers"."name" as "tier_name"`
export const LIVE_USERS = `select ${USER_COLUMNS} from "users" left join "tiers" on "tiers"."id" = "users"."tier_id"`
/**
 * The caller of a request: the live user in a live session, the token not revoked (one statement,
 * as the service's). Parameters: 0 (not deleted), the user's id, the session's id, the token's jti;
 * written with `?`, which the PostgreSQL references number.
 */
export const CALLER_IN_SESSION = `select ${USER_COLUMNS} from "users" left join "tiers" on "tiers"."id" = "users"."tier_id" inner join "sessions" on "sessions"."user_id" = "users"."id" where "users"."is_deleted" = ? and "users"."id" = ? and "sessions"."id" = ? and "sessions"."revoked_at" is null and not exists (select "revoked_tokens"."jti" from "revoked_tokens" where "revoked_tokens"."jti" = ?)`

/** `?` placeholders numbered as PostgreSQL writes them ($1, $2, ...). */
export const numbered = (sql) => {
  let n = 0
  return sql.replaceAll('?', () => `$${(n += 1)}`)
}
export const POST_COLUMNS = `"id", "title", "text", "media_url", "author_id", "created_at", "updated_at"`
export const DEFAULT_PROFILE_IMAGE_URL = 'https://profileimageurl.com'

// The access tokens' public key (EdDSA), imported once as the service does; run.ts gives the
// service the private half.
const publicKey = await importSPKI(process.env.BENCH_ACCESS_TOKEN_PUBLIC_KEY ?? '', 'EdDSA')
const TOKEN_OPTIONS = { algorithms: ['EdDSA'], issuer: 'user-post-service', audience: 'user-post-service', requiredClaims: ['sub', 'jti', 'exp', 'iat'] }

// Tokens verified lately, by their text, until they expire: the service keeps 10,000 (a
// signature check costs more than the rest of a cached read), so the references do the same work.
const VERIFIED_KEPT = 10_000
const verified = new Map()

/** The service's access-token check (EdDSA, issuer, audience, type, claims): the caller's ids, or undefined. */
export async function verifyAccess(authorization) {
  if (typeof authorization !== 'string' || !authorization.startsWith('Bearer ')) return undefined
  const token = authorization.slice(7)
  const known = verified.get(token)
  if (known) return known.expiresAt > Date.now() ? known.caller : undefined
  try {
    const { payload } = await jwtVerify(token, publicKey, TOKEN_OPTIONS)
    const userId = Number(payload.sub)
    if (payload.typ !== 'access' || !Number.isSafeInteger(userId) || typeof payload.sid !== 'string' || typeof payload.jti !== 'string') return undefined
    const caller = { userId, jti: payload.jti, sessionId: payload.sid }
    if (verified.size >= VERIFIED_KEPT) verified.delete(verified.keys().next().value)
    verified.set(token, { caller, expiresAt: payload.exp * 1000 })
    return caller
  } catch {
    return undefined
  }
}

/** argon2id with the service's parameters (passed by bench/run.ts). */
const HASH_OPTIONS = JSON.parse(process.env.BENCH_HASH_PARAMETERS ?? '{}')
export const hashPassword = (password) => hash(password, HASH_OPTIONS)

export const NOT_AUTHENTICATED = { status: 401, body: { detail: 'Not authenticated' } }

/**
 * The two authenticated routes over a dialect's `caller` (token → live user in a live session)
 * and `insertPost` (author id, input, time → the row, or nothing when the author is gone).
 */
export function authenticatedRoutes(caller, insertPost) {
  return {
    async me(authorization) {
      const user = await caller(authorization)
      return user ? { status: 200, body: userRead(user) } : NOT_AUTHENTICATED
    },
    async createPost(authorization, input) {
      const user = await caller(authorization)
      if (!user) return NOT_AUTHENTICATED
      const row = await insertPost(user.id, input, new Date().toISOString())
      return row ? { status: 201, body: postRead(row) } : NOT_AUTHENTICATED
    },
  }
}

export async function readJson(req) {
  let text = ''
  for await (const chunk of req) text += chunk
  return JSON.parse(text)
}

/** The routes the benchmark compares, parsed from method and URL. */
export function route(method, url) {
  const [path, query = ''] = url.split('?')
  const params = new URLSearchParams(query)
  let match = /^\/services\/v1\/users\/(\d+)$/.exec(path)
  if (match && method === 'GET') return { name: 'get-user', id: Number(match[1]) }
  if (path === '/services/v1/users/' || path === '/services/v1/users') {
    if (method === 'POST') return { name: 'create-user' }
    return { name: 'list-users', page: Number(params.get('page') ?? 1), perPage: Number(params.get('items_per_page') ?? 10) }
  }
  if (path === '/services/v1/users/search') return { name: 'search-users', text: params.get('name') ?? '' }
  if (path === '/services/v1/users/me') return { name: 'me' }
  match = /^\/services\/v1\/posts\/(\d+)$/.exec(path)
  if (match && method === 'GET') return { name: 'get-post', id: Number(match[1]) }
  if (path === '/services/v1/posts/' || path === '/services/v1/posts') {
    if (method === 'POST') return { name: 'create-post' }
    return { name: 'list-posts', page: Number(params.get('page') ?? 1), limit: Number(params.get('limit') ?? 10) }
  }
  return undefined
}

/** Runs a data-module operation, synchronous or not, and sends its {status, body}. */
export function answer(res, result) {
  if (result instanceof Promise) {
    result.then(
      (value) => sendJson(res, value.status, value.body),
      () => sendJson(res, 500, { detail: 'Internal server error' }),
    )
  } else sendJson(res, result.status, result.body)
}
