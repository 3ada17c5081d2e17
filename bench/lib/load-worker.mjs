// Runs one autocannon load (in its own process, so it can be pinned to its own core) and
// prints the result as JSON. Input: a JSON spec as the only argument.
//
// A spec is one request (method, path, headers, body) or a `mix` of weighted ones. In a path,
// ":id" becomes a random user id (1..maxUserId); in a body, "{n}" becomes a number unique to
// this request, for writes that must not collide (sign-ups). Items of a mix may name a `kind`
// ("read", "write", "login"): the result then gives each kind's own latency, since one p99 over a
// mix reports its slowest kind.
import autocannon from 'autocannon'

import { nearestRank } from './percentile.mjs'

const spec = JSON.parse(process.argv[2])
let sequence = 0
const unique = () => `${process.pid}x${(sequence += 1)}`

function requestOf(item) {
  const body = item.body === undefined ? undefined : JSON.stringify(item.body)
  const fresh = (context) => {
    if (context && item.kind !== undefined) context.kind = item.kind
    return {
      method: item.method ?? 'GET',
      path: item.path.replace(':id', String(1 + Math.floor(Math.random() * (spec.maxUserId ?? 1)))),
      headers: item.headers ?? {},
      ...(body === undefined ? {} : { body: body.replaceAll('{n}', unique()) }),
    }
  }
  return fresh
}

const choices = (spec.mix ?? [spec]).map((item) => ({ weight: item.weight ?? 1, next: requestOf(item) }))
const totalWeight = choices.reduce((sum, choice) => sum + choice.weight, 0)
function pick(context) {
  let roll = Math.random() * totalWeight
  for (const choice of choices) {
    roll -= choice.weight
    if (roll < 0) return choice.next(context)
  }
  return choices[choices.length - 1].next(context)
}
const dynamic = choices.length > 1 || spec.randomUserId || (spec.body !== undefined && JSON.stringify(spec.body).includes('{n}'))
const first = pick()

const instance = autocannon({
  url: spec.url,
  connections: spec.connections,
  pipelining: 1,
  duration: spec.duration,
  timeout: 30,
  requests: [dynamic ? { ...first, setupRequest: (_request, context) => pick(context) } : first],
})
// With one request in flight per connection, a response is to the request its connection's
// context last chose (autocannon picks the next one only after reporting the response).
const latenciesByKind = new Map()
if ((spec.mix ?? []).some((item) => item.kind !== undefined)) {
  instance.on('response', (client, _status, _bytes, milliseconds) => {
    const kind = client.requestIterator.context.kind ?? 'other'
    if (!latenciesByKind.has(kind)) latenciesByKind.set(kind, [])
    latenciesByKind.get(kind).push(milliseconds)
  })
}
const result = await instance

/** In whole milliseconds, as autocannon reports its own. */
const percentile = (sorted, fraction) => Math.round(nearestRank(sorted, fraction))
const byKind = Object.fromEntries(
  [...latenciesByKind].map(([kind, values]) => {
    const sorted = values.sort((a, b) => a - b)
    return [kind, { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) }]
  }),
)
process.stdout.write(
  JSON.stringify({
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    // How many answers of each status that is not 2xx: a refusal by design (422) from an overload (503).
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).filter(([code]) => !code.startsWith('2')).map(([code, stats]) => [code, stats.count])),
    errors: result.errors,
    timeouts: result.timeouts,
    ...(latenciesByKind.size > 0 ? { byKind } : {}),
  }),
)
