// The limit for SQLite: node:http and better-sqlite3, the service's SQL and response, no framework.
import http from 'node:http'
import path from 'node:path'
import Database from 'better-sqlite3'
import { likeContains, postRead, route, sendJson, userRead } from './common.mjs'

const db = new Database(path.join(process.env.DATA_DIR, 'app.db'))
db.pragma('busy_timeout = 5000')
const USER = `select "users"."id", "users"."name", "users"."username", "users"."email", "users"."profile_image_url",
  "users"."tier_id", "users"."age", "users"."is_active", "users"."is_superuser", "users"."is_verified",
  "users"."created_at", "users"."updated_at", "tiers"."name" as "tier_name"
  from "users" left join "tiers" on "tiers"."id" = "users"."tier_id" where "users"."is_deleted" = ?`
const getUser = db.prepare(`${USER} and "users"."id" = ?`)
const listUsers = db.prepare(`${USER} and "users"."id" in (select "users"."id" from "users" where "users"."is_deleted" = ? order by "users"."id" limit ? offset ?) order by "users"."id"`)
const countUsers = db.prepare(`select sum(count) as "count" from "row_counts" where "name" = ?`)
const searchIndexed = db.prepare(`${USER} and "users"."is_active" = ? and users.id in (select rowid from users_search where "name" like ?) order by "users"."id" limit ? offset ?`)
const searchScan = db.prepare(`${USER} and "users"."is_active" = ? and lower(users.name) like ? escape '\\' order by "users"."id" limit ? offset ?`)
const listPosts = db.prepare(`select "id", "title", "text", "media_url", "author_id", "created_at", "updated_at" from "posts" where "posts"."is_deleted" = ? and "posts"."id" in (select "posts"."id" from "posts" where "posts"."is_deleted" = ? order by "posts"."id" desc limit ? offset ?) order by "posts"."id" desc`)

http
  .createServer((req, res) => {
    const r = route(req.url)
    if (r?.name === 'get-user') {
      const row = getUser.get(0, r.id)
      return row ? sendJson(res, 200, userRead(row)) : sendJson(res, 404, { detail: 'User not found' })
    }
    if (r?.name === 'list-users') {
      const rows = listUsers.all(0, 0, r.perPage, (r.page - 1) * r.perPage)
      const total = Number(countUsers.get('users').count)
      return sendJson(res, 200, {
        data: rows.map(userRead),
        total_count: total,
        has_more: (r.page - 1) * r.perPage + rows.length < total,
        page: r.page,
        items_per_page: r.perPage,
      })
    }
    if (r?.name === 'search-users') {
      // As the service: the index for three or more characters without wildcards.
      const statement = [...r.text].length >= 3 && !/[\\%_]/.test(r.text) ? searchIndexed : searchScan
      return sendJson(res, 200, statement.all(0, 1, likeContains(r.text), 100, 0).map(userRead))
    }
    if (r?.name === 'list-posts') return sendJson(res, 200, listPosts.all(0, 0, r.limit, (r.page - 1) * r.limit).map(postRead))
    sendJson(res, 404, { detail: 'Not Found' })
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'))
