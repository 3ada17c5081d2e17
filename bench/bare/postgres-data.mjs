// The service's SQL for PostgreSQL, with pg (a pool of 10, as the service) and nothing else:
// what each benchmarked route must do at the least. Each operation answers {status, body}.
import pg from 'pg'

import { authenticatedRoutes, CALLER_IN_SESSION, DEFAULT_PROFILE_IMAGE_URL, hashPassword, likeContains, LIVE_USERS, numbered, POST_COLUMNS, postRead, userRead, verifyAccess } from './common.mjs'

export function openData() {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
  const one = async (text, values) => (await pool.query(text, values)).rows[0]
  const live = `${LIVE_USERS} where "users"."is_deleted" = $1`

  /** The caller of a request: a valid access token, not revoked, whose session and user are live (one statement, as the service). */
  const caller = async (authorization) => {
    const token = await verifyAccess(authorization)
    if (!token) return undefined
    return one(numbered(CALLER_IN_SESSION), [0, token.userId, token.sessionId, token.jti])
  }

  return {
    async getUser(id) {
      const row = await one(`${live} and "users"."id" = $2`, [0, id])
      return row ? { status: 200, body: userRead(row) } : { status: 404, body: { detail: 'User not found' } }
    },
    async listUsers(page, perPage) {
      const [{ rows }, count] = await Promise.all([
        pool.query(
          `${live} and "users"."id" in (select "users"."id" from "users" where "users"."is_deleted" = $2 order by "users"."id" limit $3 offset $4) order by "users"."id"`,
          [0, 0, perPage, (page - 1) * perPage],
        ),
        one(`select sum(count) as "count" from "row_counts" where "name" = $1`, ['users']),
      ])
      const total = Number(count.count)
      return { status: 200, body: { data: rows.map(userRead), total_count: total, has_more: (page - 1) * perPage + rows.length < total, page, items_per_page: perPage } }
    },
    async searchUsers(text) {
      const { rows } = await pool.query(`${live} and "users"."is_active" = $2 and lower(users.name) like $3 escape '\\' order by "users"."id" limit $4 offset $5`, [
        0, 1, likeContains(text), 100, 0,
      ])
      return { status: 200, body: rows.map(userRead) }
    },
    async getPost(id) {
      const row = await one(`select ${POST_COLUMNS} from "posts" where "posts"."is_deleted" = $1 and "posts"."id" = $2`, [0, id])
      return row ? { status: 200, body: postRead(row) } : { status: 404, body: { detail: 'Post not found' } }
    },
    // The service's listing anyone sees: the public and published posts, a first page straight down their index, a deeper one through its ids.
    async listPosts(page, limit) {
      const { rows } =
        page === 1
          ? await pool.query(`select ${POST_COLUMNS} from "posts" where "posts"."is_deleted" = $1 and ("posts"."visibility" = $2 and "posts"."status" = $3) order by "posts"."id" desc limit $4`, [0, 'public', 'published', limit])
          : await pool.query(
              `select ${POST_COLUMNS} from "posts" where "posts"."is_deleted" = $1 and "posts"."id" in (select "posts"."id" from "posts" where "posts"."is_deleted" = $2 and ("posts"."visibility" = $3 and "posts"."status" = $4) order by "posts"."id" desc limit $5 offset $6) order by "posts"."id" desc`,
              [0, 0, 'public', 'published', limit, (page - 1) * limit],
            )
      return { status: 200, body: rows.map(postRead) }
    },
    ...authenticatedRoutes(caller, (authorId, input, now) =>
      one(
        `insert into "posts" ("author_id", "title", "text", "media_url", "created_at", "updated_at") select "users"."id", $1 as "title", $2 as "text", $3 as "media_url", $4 as "created_at", $5 as "updated_at" from "users" where "users"."id" = $6 and "users"."is_deleted" = $7 for share returning ${POST_COLUMNS}`,
        [input.title, input.text, input.media_url ?? null, now, now, authorId, 0],
      ),
    ),
    async createUser(input) {
      if (await one(`select "id" from "users" where lower("email") = $1`, [input.email.toLowerCase()])) return { status: 409, body: { detail: 'Email is already registered' } }
      if (await one(`select "id" from "users" where "username" = $1`, [input.username])) return { status: 409, body: { detail: 'Username not available' } }
      const hashed = await hashPassword(input.password)
      const now = new Date().toISOString()
      const row = await one(
        `insert into "users" ("name", "username", "email", "hashed_password", "profile_image_url", "age", "is_superuser", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning "id", "name", "username", "email", "profile_image_url", "avatar_key", "tier_id", "age", "is_active", "is_superuser", "is_verified", "created_at", "updated_at"`,
        [input.name, input.username, input.email, hashed, DEFAULT_PROFILE_IMAGE_URL, input.age ?? null, 0, now, now],
      )
      return { status: 201, body: userRead(row) }
    },
  }
}
