// The framework's ceiling: a minimal Fastify 5 server with the same routes as the service, each
// with params, query, body and response schemas, over the same data module as the bare server
// (bench/bare/<dialect>-data.mjs) and with the same headers. No plugins, hooks or logger: what
// Fastify itself costs on top of node:http.
import Fastify from 'fastify'

import { perRequestHeaders,SECURITY_HEADERS } from './common.mjs'

const { openData } = await import(`./${process.env.BENCH_DIALECT}-data.mjs`)
const data = openData()

const nullable = (type) => ({ anyOf: [{ type }, { type: 'null' }] })
const UserRead = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, username: { type: 'string' }, email: { type: 'string' }, profile_image_url: { type: 'string' }, tier_id: nullable('integer') },
}
const PostRead = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, title: { type: 'string' }, text: { type: 'string' }, media_url: nullable('string'),
    author_id: { type: 'integer' }, created_at: { type: 'string' }, updated_at: { type: 'string' },
  },
}
const Detail = { type: 'object', properties: { detail: { type: 'string' } } }
const Page = { type: 'integer', minimum: 1, default: 1 }
const UserPage = {
  type: 'object',
  properties: { data: { type: 'array', items: UserRead }, total_count: { type: 'integer' }, has_more: { type: 'boolean' }, page: { type: 'integer' }, items_per_page: { type: 'integer' } },
}

const app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } })
const send = (reply, result) => reply.code(result.status).headers(perRequestHeaders()).headers(SECURITY_HEADERS).send(result.body)
const sendAsync = async (reply, result) => send(reply, await result)

app.get(
  '/services/v1/users/:id',
  { schema: { params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] }, response: { 200: UserRead, 404: Detail } } },
  (request, reply) => sendAsync(reply, data.getUser(request.params.id)),
)
app.get(
  '/services/v1/users/',
  {
    schema: {
      querystring: { type: 'object', properties: { page: Page, items_per_page: { type: 'integer', minimum: 1, maximum: 100, default: 10 } } },
      response: { 200: UserPage },
    },
  },
  (request, reply) => sendAsync(reply, data.listUsers(request.query.page, request.query.items_per_page)),
)
app.get(
  '/services/v1/users/search',
  { schema: { querystring: { type: 'object', properties: { name: { type: 'string', maxLength: 50 } } }, response: { 200: { type: 'array', items: UserRead } } } },
  (request, reply) => sendAsync(reply, data.searchUsers(request.query.name ?? '')),
)
app.get('/services/v1/users/me', { schema: { response: { 200: UserRead, 401: Detail } } }, (request, reply) => sendAsync(reply, data.me(request.headers.authorization)))
app.get(
  '/services/v1/posts/:id',
  { schema: { params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] }, response: { 200: PostRead, 404: Detail } } },
  (request, reply) => sendAsync(reply, data.getPost(request.params.id)),
)
app.get(
  '/services/v1/posts/',
  { schema: { querystring: { type: 'object', properties: { page: Page, limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 } } }, response: { 200: { type: 'array', items: PostRead } } } },
  (request, reply) => sendAsync(reply, data.listPosts(request.query.page, request.query.limit)),
)
app.post(
  '/services/v1/posts/',
  {
    schema: {
      body: { type: 'object', properties: { title: { type: 'string', minLength: 2, maxLength: 30 }, text: { type: 'string', minLength: 1, maxLength: 63206 }, media_url: nullable('string') }, required: ['title', 'text'], additionalProperties: false },
      response: { 201: PostRead, 401: Detail },
    },
  },
  (request, reply) => sendAsync(reply, data.createPost(request.headers.authorization, request.body)),
)
app.post(
  '/services/v1/users/',
  {
    schema: {
      body: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 2, maxLength: 30 }, username: { type: 'string', minLength: 2, maxLength: 20, pattern: '^[a-z0-9_]+$' }, email: { type: 'string', format: 'email' }, password: { type: 'string', minLength: 8 } },
        required: ['name', 'username', 'email', 'password'],
        additionalProperties: false,
      },
      response: { 201: UserRead, 409: Detail },
    },
  },
  (request, reply) => sendAsync(reply, data.createUser(request.body)),
)

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
process.stdout.write('listening\n')
