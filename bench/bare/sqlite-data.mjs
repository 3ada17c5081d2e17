// The service's SQL for SQLite, with better-sqlite3 and nothing else: what each benchmarked
// route must do at the least. Each operation answers {status, body}, synchronously where the
// work is synchronous.
import path from 'node:path'

// The driver the service picks on this Node.js, from its build (bench/run.ts builds first).
import Database from '../../dist/db/sqlite-driver.js'
import { authenticatedRoutes, CALLER_IN_SESSION, DEFAULT_PROFILE_IMAGE_URL, hashPassword, likeContains, LIVE_USERS, POST_COLUMNS, postRead, userRead, verifyAccess } from './common.mjs'

export function openData() {
  const db = new Database(path.join(process.env.DATA_DIR, 'app.db'))
  db.pragma('busy_timeout = 5000')
  // Parameters as the service writes them, `+?` (StablePlanQueryCompiler, src/db/sqlite-dialect.ts):
  // a bare `?` that the planner looks at makes SQLite prepare the statement again on every run.
  const prepare = (sql) => db.prepare(sql.replaceAll('?', '+?'))
  const live = `${LIVE_USERS} where "users"."is_deleted" = ?`
  const getUser = prepare(`${live} and "users"."id" = ?`)
  const listUsers = prepare(`${live} and "users"."id" in (select "users"."id" from "users" where "users"."is_deleted" = ? order by "users"."id" limit ? offset ?) order by "users"."id"`)
  const countUsers = prepare(`select sum(count) as "count" from "row_counts" where "name" = ?`)
  const searchIndexed = prepare(`${live} and "users"."is_active" = ? and users.id in (select rowid from users_search where "name" like ?) order by "users"."id" limit ? offset ?`)
  const searchScan = prepare(`${live} and "users"."is_active" = ? and lower(users.name) like ? escape '\\' order by "users"."id" limit ? offset ?`)
  const getPost = prepare(`select ${POST_COLUMNS} from "posts" where "posts"."is_deleted" = ? and "posts"."id" = ?`)
  // The service's listing anyone sees: the public and published posts, a first page straight down their index, a deeper one through its ids.
  const firstPosts = prepare(`select ${POST_COLUMNS} from "posts" where "posts"."is_deleted" = ? and ("posts"."visibility" = ? and "posts"."status" = ?) order by "posts"."id" desc limit ?`)
  const listPosts = prepare(
    `select ${POST_COLUMNS} from "posts" where "posts"."is_deleted" = ? and "posts"."id" in (select "posts"."id" from "posts" where "posts"."is_deleted" = ? and ("posts"."visibility" = ? and "posts"."status" = ?) order by "posts"."id" desc limit ? offset ?) order by "posts"."id" desc`,
  )
  const callerInSession = prepare(CALLER_IN_SESSION)
  const insertPost = prepare(
    `insert into "posts" ("author_id", "title", "text", "media_url", "created_at", "updated_at") select "users"."id", ? as "title", ? as "text", ? as "media_url", ? as "created_at", ? as "updated_at" from "users" where "users"."id" = ? and "users"."is_deleted" = ? returning ${POST_COLUMNS}`,
  )
  const emailTaken = prepare(`select "id" from "users" where lower("email") = ?`)
  const usernameTaken = prepare(`select "id" from "users" where "username" = ?`)
  const insertUser = prepare(
    `insert into "users" ("name", "username", "email", "hashed_password", "profile_image_url", "age", "is_superuser", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id", "name", "username", "email", "profile_image_url", "avatar_key", "tier_id", "age", "is_active", "is_superuser", "is_verified", "created_at", "updated_at"`,
  )

  // Writes step to the end (`all`, as the service's driver does), not `get`: SQLite runs its WAL
  // auto-checkpoint only when a statement finishes, and `get` resets an INSERT … RETURNING after
  // its first row. With `get` this server never checkpointed, and left its WAL for the service
  // to copy back on its next write (measured: 5-10 µs per insert).
  const insertedRow = (statement, ...parameters) => statement.all(...parameters)[0]

  /** The caller of a request: a valid access token, not revoked, whose session and user are live (one statement, as the service). */
  const caller = async (authorization) => {
    const token = await verifyAccess(authorization)
    if (!token) return undefined
    return callerInSession.get(0, token.userId, token.sessionId, token.jti)
  }

  return {
    getUser(id) {
      const row = getUser.get(0, id)
      return row ? { status: 200, body: userRead(row) } : { status: 404, body: { detail: 'User not found' } }
    },
    listUsers(page, perPage) {
      const rows = listUsers.all(0, 0, perPage, (page - 1) * perPage)
      const total = Number(countUsers.get('users').count)
      return { status: 200, body: { data: rows.map(userRead), total_count: total, has_more: (page - 1) * perPage + rows.length < total, page, items_per_page: perPage } }
    },
    searchUsers(text) {
      // As the service: the trigram index for three or more characters without wildcards.
      const statement = [...text].length >= 3 && !/[\\%_]/.test(text) ? searchIndexed : searchScan
      return { status: 200, body: statement.all(0, 1, likeContains(text), 100, 0).map(userRead) }
    },
    getPost(id) {
      const row = getPost.get(0, id)
      return row ? { status: 200, body: postRead(row) } : { status: 404, body: { detail: 'Post not found' } }
    },
    listPosts(page, limit) {
      const rows = page === 1 ? firstPosts.all(0, 'public', 'published', limit) : listPosts.all(0, 0, 'public', 'published', limit, (page - 1) * limit)
      return { status: 200, body: rows.map(postRead) }
    },
    ...authenticatedRoutes(caller, (authorId, input, now) => insertedRow(insertPost, input.title, input.text, input.media_url ?? null, now, now, authorId, 0)),
    async createUser(input) {
      if (emailTaken.get(input.email.toLowerCase())) return { status: 409, body: { detail: 'Email is already registered' } }
      if (usernameTaken.get(input.username)) return { status: 409, body: { detail: 'Username not available' } }
      const hashed = await hashPassword(input.password)
      const now = new Date().toISOString()
      const row = insertedRow(insertUser, input.name, input.username, input.email, hashed, DEFAULT_PROFILE_IMAGE_URL, input.age ?? null, 0, now, now)
      return { status: 201, body: userRead(row) }
    },
  }
}
