// A local server speaking Have I Been Pwned's range API (api.pwnedpasswords.com/range/{prefix}):
// `SUFFIX:COUNT` lines for the SHA-1 hashes that start with the five-character prefix, and, when
// asked with `Add-Padding: true`, random padding lines with a count of 0, as HIBP pads.
import { createHash, randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export const sha1Hex = (password: string) => createHash('sha1').update(password).digest('hex').toUpperCase()

export interface RangeServer {
  url: string
  /** The path and whether padding was asked, per request. */
  requests: { path: string; padding: boolean }[]
  /** Answer 503 (true) or as HIBP does (false). */
  down: boolean
  close(): Promise<void>
}

export async function startRangeServer(breached: Record<string, number>): Promise<RangeServer> {
  const hashes = Object.entries(breached).map(([password, count]) => [sha1Hex(password), count] as const)
  const state: RangeServer = { url: '', requests: [], down: false, close: async () => {} }
  const server = http.createServer((request, response) => {
    const padding = request.headers['add-padding'] === 'true'
    state.requests.push({ path: request.url ?? '', padding })
    if (state.down) return response.writeHead(503).end()
    const prefix = /^\/range\/([0-9A-F]{5})$/i.exec(request.url ?? '')?.[1]?.toUpperCase()
    if (!prefix) return response.writeHead(400).end()
    const lines = hashes.filter(([hash]) => hash.startsWith(prefix)).map(([hash, count]) => `${hash.slice(5)}:${count}`)
    if (padding) for (let index = 0; index < 800; index++) lines.push(`${randomBytes(18).toString('hex').slice(0, 35).toUpperCase()}:0`)
    return response.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  state.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  return state
}
