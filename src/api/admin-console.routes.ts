// Serves the admin console (built from admin/ by `npm run build` into dist/admin-console) at
// /admin/. Static files only: the page signs in through the public API and calls nothing else,
// so the API's authorization rules are the console's. The page's policy allows scripts, styles
// and requests from this origin alone: no inline script, no framing.
import { existsSync } from 'node:fs'
import path from 'node:path'

import fastifyStatic from '@fastify/static'
import type { FastifyPluginAsync } from 'fastify'

import { DomainError } from '../shared/errors.js'
import { projectPath } from '../shared/project-files.js'

export const ADMIN_CONSOLE_DIR = projectPath('dist', 'admin-console')
export const ADMIN_CONSOLE_NOT_BUILT = 'The admin console is not built: run npm run build'

export const ADMIN_PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const adminConsoleRoutes: FastifyPluginAsync = async (app) => {
  if (!existsSync(path.join(ADMIN_CONSOLE_DIR, 'index.html'))) {
    app.log.warn(`${ADMIN_CONSOLE_NOT_BUILT} (looked in ${ADMIN_CONSOLE_DIR})`)
    const notBuilt = async () => {
      throw new DomainError('unavailable', ADMIN_CONSOLE_NOT_BUILT)
    }
    app.get('/admin', { schema: { hide: true } }, notBuilt)
    app.get('/admin/*', { schema: { hide: true } }, notBuilt)
    return
  }

  app.addHook('onSend', async (request, reply) => {
    reply.header('content-security-policy', ADMIN_PAGE_POLICY)
    reply.header('referrer-policy', 'no-referrer')
    reply.header('cross-origin-opener-policy', 'same-origin')
    // Built assets carry their content hash in the name; the page itself must always be fresh.
    const immutable = request.url.startsWith('/admin/assets/') && reply.statusCode === 200
    reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
  })
  await app.register(fastifyStatic, {
    root: ADMIN_CONSOLE_DIR,
    prefix: '/admin/',
    index: false,
    wildcard: true,
    cacheControl: false,
    schemaHide: true,
  })
  // The console's views live in the URL's fragment (#/users/7): /admin and /admin/ are the one page.
  app.get('/admin', { schema: { hide: true } }, (_request, reply) => reply.sendFile('index.html'))
}

export default adminConsoleRoutes
