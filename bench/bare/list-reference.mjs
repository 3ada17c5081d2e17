// The same-work reference of the post lists (`npm run bench -- --only visibility`): a minimal
// Fastify 5 server answering GET /api/v2/posts/?limit=N with the statements the service sends for
// that caller, as the service's own repositories built them (bench/lib/list-statements.ts
// captured them into BENCH_LIST_STATEMENTS): the token verified and its session checked as the
// service does, the caller's organizations read, the page with its total, then the files of the
// page's posts that have any; the same envelope, items and headers. The pages do not change while the benchmark
// reads them, so each caller's statements are replayed as they were captured. What the service
// spends beyond this is the framework and its own code; what the database spends is the plan's.
import { readFileSync } from 'node:fs'
import path from 'node:path'

import Fastify from 'fastify'

import { CALLER_IN_SESSION, numbered, perRequestHeaders, SECURITY_HEADERS, verifyAccess } from './common.mjs'

/** By the caller's user id, or "anonymous": {roles, page, count, files}, each a list of {sql, parameters}. */
const statementsOf = JSON.parse(readFileSync(process.env.BENCH_LIST_STATEMENTS, 'utf8'))

async function openDatabase() {
  if (process.env.BENCH_DIALECT === 'sqlite') {
    const { default: Database } = await import('../../dist/db/sqlite-driver.js')
    const db = new Database(path.join(process.env.DATA_DIR, 'app.db'))
    db.pragma('busy_timeout = 5000')
    const prepared = new Map()
    const statement = (sql) => prepared.get(sql) ?? prepared.set(sql, db.prepare(sql)).get(sql)
    return { run: (sql, parameters) => statement(sql).all(...parameters), caller: CALLER_IN_SESSION }
  }
  const { default: pg } = await import('pg')
  // Timestamps as ISO text straight from PostgreSQL's text, as the service reads them (src/db/fast-path/pg-timestamps.ts).
  const types = {
    getTypeParser: (oid, format) =>
      oid === 1184 && format !== 'binary' ? (text) => `${text.slice(0, 10)}T${text.slice(11, 19)}.${(text.length > 22 ? `${text.slice(20, -3)}000` : '000').slice(0, 3)}Z` : pg.types.getTypeParser(oid, format),
  }
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, types })
  return { run: async (sql, parameters) => (await pool.query(sql, parameters)).rows, caller: numbered(CALLER_IN_SESSION) }
}

const database = await openDatabase()
const runAll = async (statements) => {
  const rows = []
  for (const { sql, parameters } of statements) rows.push(...(await database.run(sql, parameters)))
  return rows
}
/** The total: the page's rows carry it in a column; an empty page's comes from the statements that count. */
const totalOf = (page, counted) => (page.length > 0 ? Number(page[0].total) : counted.reduce((sum, row) => sum + Object.values(row).reduce((inner, value) => inner + Number(value ?? 0), 0), 0))

const fileRead = (row) => ({
  id: row.id,
  name: row.name,
  content_type: row.content_type,
  size: Number(row.size),
  sha256: row.sha256 ?? '',
  url: `/api/v2/files/${row.id}/content`,
  variants: {},
  post_id: row.post_id,
  created_at: row.created_at,
})
const postRead = (row, files) => ({
  id: row.id,
  title: row.title,
  text: row.text,
  media_url: row.media_url,
  author_id: row.author_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
  visibility: row.visibility,
  status: row.status,
  org_id: row.org_id === null ? null : Number(row.org_id),
  published_at: row.published_at,
  slug: row.slug,
  attachments: files.filter((file) => file.post_id === row.id).map(fileRead),
  comments: row.comments,
  comment_count: Number(row.comment_count),
  // The bench's posts have no reactions: as ours, a page with none reads none (reaction_count).
  reaction_counts: {},
  my_reactions: [],
})

const app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } })
const nullable = (type) => ({ anyOf: [{ type }, { type: 'null' }] })
const FileRead = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, name: { type: 'string' }, content_type: { type: 'string' }, size: { type: 'integer' }, sha256: { type: 'string' },
    url: { type: 'string' }, variants: { type: 'object', additionalProperties: { type: 'string' } }, post_id: nullable('integer'), created_at: { type: 'string' },
  },
}
const PostRead = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, title: { type: 'string' }, text: { type: 'string' }, media_url: nullable('string'), author_id: { type: 'integer' },
    created_at: { type: 'string' }, updated_at: { type: 'string' }, visibility: { type: 'string' }, status: { type: 'string' }, org_id: nullable('integer'),
    published_at: nullable('string'), slug: { type: 'string' }, attachments: { type: 'array', items: FileRead },
    comments: { type: 'string' }, comment_count: { type: 'integer' }, reaction_counts: { type: 'object', additionalProperties: { type: 'integer' } }, my_reactions: { type: 'array', items: { type: 'string' } },
  },
}
app.get(
  '/api/v2/posts/',
  {
    schema: {
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 }, page: { type: 'integer', minimum: 1, default: 1 } } },
      response: {
        200: {
          type: 'object',
          properties: { data: { type: 'array', items: PostRead }, total_count: { type: 'integer' }, has_more: { type: 'boolean' }, page: { type: 'integer' }, items_per_page: { type: 'integer' }, next_cursor: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        },
      },
    },
  },
  async (request, reply) => {
    const { limit } = request.query
    let key = 'anonymous'
    if (request.headers.authorization !== undefined) {
      const token = await verifyAccess(request.headers.authorization)
      const [user] = token ? await database.run(database.caller, [0, token.userId, token.sessionId, token.jti]) : []
      if (!user) return reply.code(401).headers(perRequestHeaders()).headers(SECURITY_HEADERS).send({ detail: 'Not authenticated' })
      key = String(user.id)
    }
    const statements = statementsOf[key]
    await runAll(statements.roles)
    const found = await runAll(statements.page)
    const counted = found.length === 0 ? await runAll(statements.count) : []
    const page = found.slice(0, limit)
    const files = page.some((row) => Number(row.attachment_count) > 0) ? await runAll(statements.files) : []
    const total = totalOf(found, counted)
    const last = page[page.length - 1]
    const body = {
      data: page.map((row) => postRead(row, files)),
      total_count: total,
      has_more: page.length < total,
      page: 1,
      items_per_page: limit,
      next_cursor: found.length > limit && last ? Buffer.from(`k${last.id}`).toString('base64url') : null,
    }
    return reply.headers(perRequestHeaders()).headers(SECURITY_HEADERS).send(body)
  },
)

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
