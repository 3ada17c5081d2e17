// The limit for PostgreSQL: node:http and pg (a pool of 10, as the service), the service's SQL
// and response, no framework.
import http from 'node:http'
import pg from 'pg'
import { likeContains, postRead, route, sendJson, userRead } from './common.mjs'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
const USER = `select "users"."id", "users"."name", "users"."username", "users"."email", "users"."profile_image_url",
  "users"."tier_id", "users"."age", "users"."is_active", "users"."is_superuser", "users"."is_verified",
  "users"."created_at", "users"."updated_at", "tiers"."name" as "tier_name"
  from "users" left join "tiers" on "tiers"."id" = "users"."tier_id" where "users"."is_deleted" = $1`
const fail = (res) => () => sendJson(res, 500, { detail: 'Internal server error' })

http
  .createServer((req, res) => {
    const r = route(req.url)
    if (r?.name === 'get-user') {
      return pool
        .query(`${USER} and "users"."id" = $2`, [0, r.id])
        .then(({ rows: [row] }) => (row ? sendJson(res, 200, userRead(row)) : sendJson(res, 404, { detail: 'User not found' })), fail(res))
    }
    if (r?.name === 'list-users') {
      return Promise.all([
        pool.query(
          `${USER} and "users"."id" in (select "users"."id" from "users" where "users"."is_deleted" = $2 order by "users"."id" limit $3 offset $4) order by "users"."id"`,
          [0, 0, r.perPage, (r.page - 1) * r.perPage],
        ),
        pool.query(`select sum(count) as "count" from "row_counts" where "name" = $1`, ['users']),
      ]).then(([{ rows }, { rows: [count] }]) => {
        const total = Number(count.count)
        sendJson(res, 200, {
          data: rows.map(userRead),
          total_count: total,
          has_more: (r.page - 1) * r.perPage + rows.length < total,
          page: r.page,
          items_per_page: r.perPage,
        })
      }, fail(res))
    }
    if (r?.name === 'search-users') {
      return pool
        .query(`${USER} and "users"."is_active" = $2 and lower(users.name) like $3 escape '\\' order by "users"."id" limit $4 offset $5`, [
          0, 1, likeContains(r.text), 100, 0,
        ])
        .then(({ rows }) => sendJson(res, 200, rows.map(userRead)), fail(res))
    }
    if (r?.name === 'list-posts') {
      return pool
        .query(
          `select "id", "title", "text", "media_url", "author_id", "created_at", "updated_at" from "posts" where "posts"."is_deleted" = $1 and "posts"."id" in (select "posts"."id" from "posts" where "posts"."is_deleted" = $2 order by "posts"."id" desc limit $3 offset $4) order by "posts"."id" desc`,
          [0, 0, r.limit, (r.page - 1) * r.limit],
        )
        .then(({ rows }) => sendJson(res, 200, rows.map(postRead)), fail(res))
    }
    sendJson(res, 404, { detail: 'Not Found' })
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'))
