// A frontend on its own origin for browser tests: a static server for one page, the client as it
// ships (built with tsc into a directory of the test's own) and openapi-fetch.
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'

const root = path.resolve(import.meta.dirname, '../..')

/** Builds clients/typescript into `outDir` (JavaScript and declarations). */
export async function buildClient(outDir: string): Promise<void> {
  await promisify(execFile)(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', path.join(root, 'clients', 'typescript', 'tsconfig.json'), '--outDir', outDir])
}

/** Serves `page()` at /, the built client at /client/*.js and openapi-fetch at /vendor/openapi-fetch.mjs. */
export async function serveFrontend(clientDir: string, page: () => string): Promise<{ origin: string; close(): Promise<void> }> {
  const vendor = await readFile(path.join(root, 'node_modules', 'openapi-fetch', 'dist', 'index.mjs'))
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    const send = (type: string, body: string | Buffer) => response.writeHead(200, { 'content-type': type }).end(body)
    if (url.pathname === '/') return send('text/html; charset=utf-8', page())
    if (url.pathname === '/vendor/openapi-fetch.mjs') return send('text/javascript', vendor)
    const file = /^\/client\/([a-z-]+\.js)$/.exec(url.pathname)?.[1]
    if (!file) return response.writeHead(404).end()
    readFile(path.join(clientDir, file)).then(
      (body) => send('text/javascript', body),
      () => response.writeHead(404).end(),
    )
    return undefined
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
