// Runs one autocannon load (in its own process, so it can be pinned to its own core) and
// prints the result as JSON. Input: a JSON spec as the only argument.
//
// A spec is one request (method, path, headers, body) or a `mix` of weighted ones. In a path,
// ":id" becomes a random user id (1..maxUserId); in a body, "{n}" becomes a number unique to
// this request, for writes that must not collide (sign-ups).
import autocannon from 'autocannon'

const spec = JSON.parse(process.argv[2])
let sequence = 0
const unique = () => `${process.pid}x${(sequence += 1)}`

function requestOf(item) {
  const body = item.body === undefined ? undefined : JSON.stringify(item.body)
  const fresh = () => ({
    method: item.method ?? 'GET',
    path: item.path.replace(':id', String(1 + Math.floor(Math.random() * (spec.maxUserId ?? 1)))),
    headers: item.headers ?? {},
    ...(body === undefined ? {} : { body: body.replaceAll('{n}', unique()) }),
  })
  return fresh
}

const choices = (spec.mix ?? [spec]).map((item) => ({ weight: item.weight ?? 1, next: requestOf(item) }))
const totalWeight = choices.reduce((sum, choice) => sum + choice.weight, 0)
function pick() {
  let roll = Math.random() * totalWeight
  for (const choice of choices) {
    roll -= choice.weight
    if (roll < 0) return choice.next()
  }
  return choices[choices.length - 1].next()
}
const dynamic = choices.length > 1 || spec.randomUserId || (spec.body !== undefined && JSON.stringify(spec.body).includes('{n}'))
const first = pick()

const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  pipelining: 1,
  duration: spec.duration,
  timeout: 30,
  requests: [dynamic ? { ...first, setupRequest: () => pick() } : first],
})
process.stdout.write(
  JSON.stringify({
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  }),
)
