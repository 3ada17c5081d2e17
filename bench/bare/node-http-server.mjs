// The bare reference: node:http and the database driver (bench/bare/<dialect>-data.mjs), the
// service's SQL and responses, no framework. BENCH_DIALECT chooses the database.
import http from 'node:http'

import { answer, readJson, route, sendJson } from './common.mjs'

const { openData } = await import(`./${process.env.BENCH_DIALECT}-data.mjs`)
const data = openData()

http
  .createServer((req, res) => {
    const r = route(req.method, req.url)
    switch (r?.name) {
      case 'get-user':
        return answer(res, data.getUser(r.id))
      case 'list-users':
        return answer(res, data.listUsers(r.page, r.perPage))
      case 'search-users':
        return answer(res, data.searchUsers(r.text))
      case 'get-post':
        return answer(res, data.getPost(r.id))
      case 'list-posts':
        return answer(res, data.listPosts(r.page, r.limit))
      case 'me':
        return answer(res, data.me(req.headers.authorization))
      case 'create-post':
        return answer(res, readJson(req).then((body) => data.createPost(req.headers.authorization, body)))
      case 'create-user':
        return answer(res, readJson(req).then((body) => data.createUser(body)))
      default:
        sendJson(res, 404, { detail: 'Not Found' })
    }
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'))
