import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'

// Headers for every API response, after the OWASP REST Security Cheat Sheet: JSON is never
// sniffed, framed, cached or allowed to load anything, and HTTPS sticks. A fixed object:
// @fastify/helmet rebuilds its middleware on every request, a large share of the API's cost
// (docs/performance.md); it serves only the docs pages.
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  // API answers carry personal data or tokens: no cache may keep them. Routes that serve
  // public, immutable bytes (avatars) set their own policy, which replaces this one.
  'cache-control': 'no-store',
})

const SECURITY_HEADER_NAMES = Object.keys(API_SECURITY_HEADERS)

/**
 * Sets the request id and the security headers as a request arrives. Pages with a policy of
 * their own (the docs: helmet's onRequest hook has run before) keep it; a route that sets a
 * header later replaces ours.
 */
export function setResponseHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id)
  if (reply.hasHeader('content-security-policy')) return
  // By name from a list made once: reply.headers() makes the array of an object's keys on each call.
  for (const name of SECURITY_HEADER_NAMES) reply.header(name, API_SECURITY_HEADERS[name])
}

/** setResponseHeaders as a route's onRequest hook. */
export function responseHeadersHook(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  setResponseHeaders(request, reply)
  done()
}

export interface ResponseHeadersOptions {
  /**
   * Add a hook of our own to each route. Off when the request limits run their hook on every
   * route: it calls setResponseHeaders itself, since each hook a route has costs a pass through
   * Fastify's hook runner on every request.
   */
  perRouteHook: boolean
}

// Set when the request arrives rather than in an onSend hook: a hook on the way out would run
// for every reply. Unknown routes and router errors set them in their handlers (error-handler.ts).
//
// Graceful shutdown: once close() begins, Fastify stops accepting and waits for open connections.
// A keep-alive connection whose request is still in flight would hold the shutdown until the
// client lets go; its response is marked to close the connection instead ("Connection: close").
// Connections are tracked as they open (not per request).
export default fp<ResponseHeadersOptions>(
  async (app, { perRouteHook }) => {
    if (perRouteHook) {
      app.addHook('onRoute', (route) => {
        const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
        route.onRequest = [responseHeadersHook, ...existing]
      })
    }
    const sockets = new Set<Socket>()
    app.server.on('connection', (socket: Socket) => {
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
    })
    app.addHook('preClose', (done) => {
      for (const socket of sockets) {
        const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
        if (response && !response.headersSent) response.shouldKeepAlive = false
      }
      done()
    })
  },
  { name: 'response-headers' },
)
