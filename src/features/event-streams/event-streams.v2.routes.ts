// GET /api/v2/events/stream: change events as server-sent events, and POST /api/v2/events/ticket
// for browsers, whose EventSource cannot send an Authorization header. Errors (a bad ticket, too
// many streams) answer as JSON before the stream starts; once it has, it is text/event-stream.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'

import { protectedRoute } from '../../api/common/protected-route.js'
import { errorResponses } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { apiKeysRefused } from '../../shared/errors.js'
import { eventBody } from '../change-events/index.js'
import type { StreamSink } from './event-streams.service.js'

const tags = ['events']
/** How long a browser waits before reconnecting. */
const RETRY_MS = 3000

const StreamQuery = Type.Object({
  ticket: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'From POST /api/v2/events/ticket: single use, 30 seconds' })),
  last_event_id: Type.Optional(Type.Integer({ minimum: 0, description: 'Resume after this event (the Last-Event-ID header says the same and wins)' })),
})
const TicketRead = Type.Object(
  { ticket: Type.String(), expires_in: Type.Integer({ description: 'Seconds' }) },
  { title: 'EventStreamTicket' },
)

function lastEventIdOf(header: string | string[] | undefined, query: number | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : query
}

/** Writes the stream's frames; the response starts (200, text/event-stream) at the first one. */
function sseSink(reply: FastifyReply): StreamSink & { start(): void; readonly started: boolean } {
  let started = false
  const response = reply.raw
  const write = (frame: string): number => {
    start()
    if (response.writableEnded || response.destroyed) return 0
    response.write(frame)
    return Buffer.byteLength(frame)
  }
  const start = () => {
    if (started) return
    started = true
    reply.hijack()
    // The headers hooks set before the stream (CORS, security headers) go out with it.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) response.setHeader(name, value)
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // nginx and similar proxies pass each event on at once.
      'x-accel-buffering': 'no',
    })
    response.write(`retry: ${RETRY_MS}\n\n`)
  }
  return {
    start,
    get started() {
      return started
    },
    event: (event) => write(`id: ${event.id}\nevent: ${event.type}\ndata: ${eventBody(event)}\n\n`),
    reload: () => void write(`event: reload\ndata: ${JSON.stringify({ type: 'reload' })}\n\n`),
    heartbeat: () => void write(': heartbeat\n\n'),
    end: () => {
      start()
      response.end()
    },
    abort: () => {
      response.destroy()
    },
    // What Node holds for this response and its socket, not yet handed to the kernel.
    backlog: () => (started && !response.destroyed ? response.writableLength : 0),
    drained: (ms) => {
      if (!started || response.writableLength === 0) return Promise.resolve(true)
      if (response.destroyed) return Promise.resolve(false)
      return new Promise<boolean>((resolve) => {
        const finish = (sent: boolean) => {
          clearTimeout(timer)
          response.off('drain', onDrain)
          response.off('close', onClose)
          resolve(sent)
        }
        const onDrain = () => finish(true)
        const onClose = () => finish(false)
        const timer = setTimeout(() => finish(false), ms)
        response.on('drain', onDrain)
        response.on('close', onClose)
      })
    },
  }
}

const eventStreamRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { eventStreams } = app.services

  app.post(
    '/events/ticket',
    protectedRoute(app, {
      tags,
      summary: 'A single-use ticket (30 seconds) that opens the event stream as the caller, for EventSource',
      response: { 200: TicketRead, ...errorResponses(403) },
    }, { apiKeys: false, wayIn: 'none', impersonation: 'allowed' }),
    async (request) => {
      const { ticket, expiresIn } = await eventStreams.issueTicket(tokenCallerOf(request))
      return { ticket, expires_in: expiresIn }
    },
  )

  app.get(
    '/events/stream',
    {
      schema: {
        tags,
        summary: 'Change events as server-sent events: posts for anyone, the caller\'s own user events, everything for superusers',
        description:
          'Authenticate with a bearer token or `?ticket=`; anonymous listeners get post events. Each event has `id` (resume with `Last-Event-ID`), `event` (its type) and `data` (`{type, timestamp, data}`). An `event: reload` says the client missed more than the retention window keeps. Comments (`: heartbeat`) keep the connection alive.',
        querystring: StreamQuery,
        produces: ['text/event-stream'],
        response: { 200: Type.String({ description: 'text/event-stream' }), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      if (request.caller?.apiKey) throw apiKeysRefused()
      const caller = request.caller && !request.caller.apiKey ? request.caller : null
      // HEAD says what GET would start, and starts nothing (a ticket is not spent on it).
      if (request.method === 'HEAD') return reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store').send('')
      const viewer = await eventStreams.viewerOf(caller, request.query.ticket)
      const sink = sseSink(reply)
      let close: () => void
      try {
        close = await eventStreams.open(viewer, request.ip, lastEventIdOf(request.headers['last-event-id'], request.query.last_event_id), sink)
      } catch (error) {
        // Failed mid-replay: the stream has begun, so it ends (the client reconnects and resumes); before that, the error answers.
        if (!sink.started) throw error
        request.log.warn({ err: error }, 'an event stream failed while replaying; ended it')
        reply.raw.end()
        return
      }
      sink.start()
      request.raw.once('close', close)
      reply.raw.once('close', close)
    },
  )
}

export default eventStreamRoutes
