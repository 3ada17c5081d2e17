// Runs one autocannon load (in its own process, so it can be pinned to its own core) and
// prints the result as JSON. Input: a JSON spec as the only argument.
import autocannon from 'autocannon'

const spec = JSON.parse(process.argv[2])
const randomId = () => 1 + Math.floor(Math.random() * spec.maxUserId)

const request = { method: spec.method ?? 'GET', path: spec.path, headers: spec.headers ?? {} }
if (spec.body !== undefined) request.body = JSON.stringify(spec.body)
if (spec.randomUserId) request.setupRequest = (req) => ({ ...req, path: spec.path.replace(':id', String(randomId())) })

const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  pipelining: 1,
  duration: spec.duration,
  timeout: 30,
  requests: [request],
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
