// Holds many event streams open at once (in its own process, so it can be pinned to the load
// generator's core) and times every event's arrival on every stream. Input: a JSON spec as the
// only argument, {url, streams, expected, timeoutSeconds}. Prints "ready" once every stream has
// answered; the parent then writes `expected` posts. Exits with a JSON line once every stream has
// seen them all, or at the timeout: how many streams opened, frames received, and the latency of
// each arrival after the event's `timestamp` (the moment the change was written).
import http from 'node:http'

import { nearestRank } from './percentile.mjs'

const spec = JSON.parse(process.argv[2])
const latencies = []
let opened = 0
let refused = 0
let complete = 0
let firstArrival = Infinity
let lastArrival = 0
const requests = []

function finish() {
  for (const request of requests) request.destroy()
  const sorted = latencies.sort((a, b) => a - b)
  const at = (fraction) => nearestRank(sorted, fraction) ?? null
  process.stdout.write(
    `${JSON.stringify({ opened, refused, frames: sorted.length, complete, p50: at(0.5), p99: at(0.99), max: at(1), spanMs: sorted.length ? lastArrival - firstArrival : 0 })}\n`,
  )
  process.exit(0)
}

function open() {
  return new Promise((resolve) => {
    const request = http.get(spec.url, { headers: { accept: 'text/event-stream' }, agent: false })
    requests.push(request)
    request.once('error', () => {
      refused += 1
      resolve()
    })
    request.once('response', (response) => {
      if (response.statusCode !== 200) {
        refused += 1
        response.resume()
        resolve()
        return
      }
      opened += 1
      resolve()
      let seen = 0
      let buffer = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => {
        buffer += chunk
        let end
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          // Only the timestamp is needed: a match is cheaper than parsing every payload.
          const timestamp = /"timestamp":"([^"]+)"/.exec(frame)?.[1]
          if (!frame.includes('event: post.created') || timestamp === undefined) continue
          const now = Date.now()
          latencies.push(now - Date.parse(timestamp))
          firstArrival = Math.min(firstArrival, now)
          lastArrival = now
          seen += 1
          if (seen === spec.expected && ++complete === opened) finish()
        }
      })
    })
  })
}

// A few at a time, as a crowd of browsers arrives, rather than a thousand handshakes at once.
for (let index = 0; index < spec.streams; index += 50) {
  await Promise.all(Array.from({ length: Math.min(50, spec.streams - index) }, open))
}
process.stdout.write('ready\n')
setTimeout(finish, spec.timeoutSeconds * 1000)
