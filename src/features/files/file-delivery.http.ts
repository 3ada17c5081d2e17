// Answers a file's bytes: a redirect to the store's short-lived URL (S3), or the bytes from
// local disk with an ETag (304 when unchanged), one byte range when asked (206, or 416), and
// headers that keep a browser from running what it reads.
import type { FastifyReply, FastifyRequest } from 'fastify'

import { notFound } from '../../shared/errors.js'
import type { Delivery } from './files.service.js'
import { dispositionOf } from './files.service.js'
import type { ByteRange } from './storage/index.js'

/** One range of `bytes=a-b`, `bytes=a-` or `bytes=-n`; undefined for none or several (the whole file is sent); null when it cannot be met. */
export function rangeOf(header: string | undefined, size: number): ByteRange | undefined | null {
  if (header === undefined) return undefined
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match) return undefined
  const [, from, to] = match as unknown as [string, string, string]
  if (from === '' && to === '') return null
  if (from === '') {
    const suffix = Number(to)
    return suffix === 0 || size === 0 ? null : { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(from)
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1)
  return start >= size || end < start ? null : { start, end }
}

export async function sendDelivery(request: FastifyRequest, reply: FastifyReply, delivery: Delivery): Promise<FastifyReply> {
  // Access is decided per request: no shared cache keeps the answer, and a browser asks again (304 when unchanged).
  reply.header('cache-control', 'private, no-cache')
  if ('redirect' in delivery) return reply.redirect(delivery.redirect, 302)
  const etag = `"${delivery.etag}"`
  reply
    .header('etag', etag)
    .header('accept-ranges', 'bytes')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
    .header('content-disposition', dispositionOf(delivery.file))
  if (request.headers['if-none-match'] === etag) return reply.code(304).send()
  const range = rangeOf(request.headers.range, delivery.size)
  if (range === null) {
    return reply.code(416).header('content-range', `bytes */${delivery.size}`).send({ detail: 'Range not satisfiable', code: 'range_not_satisfiable' })
  }
  const object = await request.server.services.files.open(delivery.key, range)
  if (!object) throw notFound()
  const type = delivery.contentType === 'text/plain' ? 'text/plain; charset=utf-8' : delivery.contentType
  reply.type(type)
  if (range) {
    reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${object.size}`).header('content-length', range.end - range.start + 1)
  } else {
    reply.header('content-length', object.size)
  }
  return reply.send(object.body)
}
