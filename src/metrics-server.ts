// The metrics listener (METRICS_HOST:METRICS_PORT, 127.0.0.1 by default): GET /metrics in the
// Prometheus text format, apart from the public port. In cluster mode the primary serves it and
// gathers every worker's metrics into one answer (prom-client's AggregatorRegistry).
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import type { Registry } from 'prom-client'

export interface MetricsSource {
  contentType: string
  metrics(): Promise<string>
}

export interface MetricsServer {
  port: number
  close(): Promise<void>
}

export async function startMetricsServer(source: MetricsSource, host: string, port: number): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found","code":"not_found"}')
      return
    }
    source.metrics().then(
      (text) => response.writeHead(200, { 'content-type': source.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"Internal server error","code":"internal_error"}'),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, resolve)
  })
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

export const registrySource = (registry: Registry): MetricsSource => ({ contentType: registry.contentType, metrics: () => registry.metrics() })
