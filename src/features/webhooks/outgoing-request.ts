// Webhook requests leave the service here, and only to public addresses: the host is resolved
// at connect time by a lookup that refuses loopback, private, link-local (cloud metadata),
// carrier-grade NAT and every other non-unicast range, so a name that resolves to a public
// address when checked and a private one when connecting (DNS rebinding) gets nowhere. A host
// written as an address never reaches a lookup, so it is checked first. Redirects are not
// followed; at most 4 KiB of a response is read.
import type { LookupAddress, LookupOptions } from 'node:dns'
import { lookup as dnsLookup } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'

import ipaddr from 'ipaddr.js'

const RESPONSE_BYTES = 4096

export class RefusedAddressError extends Error {}

/**
 * The IPv4 address an IPv6 address carries, for every form that embeds one: IPv4-compatible
 * (::/96), IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96),
 * 6to4 (2002::/16) and Teredo (2001::/32, whose client address is stored inverted). Such an
 * address reaches whatever its IPv4 reaches, so it is judged by it. `::` and `::1` are not IPv4.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const parts = address.parts
  const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
  const [p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 0, p5 = 0, p6 = 0, p7 = 0] = parts
  const zeros = (...values: number[]) => values.every((value) => value === 0)
  if (zeros(p0, p1, p2, p3, p4) && (p5 === 0 || p5 === 0xffff)) return p5 === 0 && p6 === 0 ? [] : [ipv4(p6, p7)]
  if (zeros(p0, p1, p2, p3) && p4 === 0xffff && p5 === 0) return [ipv4(p6, p7)]
  if (p0 === 0x64 && p1 === 0xff9b && zeros(p2, p3, p4, p5)) return [ipv4(p6, p7)]
  if (p0 === 0x2002) return [ipv4(p1, p2)]
  if (p0 === 0x2001 && p1 === 0) return [ipv4(p2, p3), ipv4(~p6 & 0xffff, ~p7 & 0xffff)]
  return []
}

/** Whether `address` is a public unicast address; an IPv6 address that embeds an IPv4 one is judged by what it embeds. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  const parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast'
  const inner = embeddedIPv4(parsed as ipaddr.IPv6)
  if (inner.length > 0) return inner.every((ipv4) => ipv4.range() === 'unicast')
  return parsed.range() === 'unicast'
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/** dns.lookup that fails for any answer holding a non-public address. */
function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, [])
    const refused = addresses.find((entry) => !isPublicAddress(entry.address))
    if (refused || addresses.length === 0) {
      return callback(Object.assign(new RefusedAddressError(`${hostname} resolves to a non-public address (${refused?.address ?? 'none'})`), { code: 'EREFUSEDADDRESS' }), [])
    }
    if (options.all) return callback(null, addresses)
    const [first] = addresses as [LookupAddress]
    callback(null, first.address, first.family)
  })
}

/** Refuses a URL whose host is written as a non-public address (names are checked when connecting). */
export function assertPublicHost(url: URL): void {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host) !== 0 && !isPublicAddress(host)) throw new RefusedAddressError(`${host} is not a public address`)
}

export interface OutgoingResponse {
  statusCode: number
  /** The first bytes of the body, at most 4 KiB. */
  body: string
}

/** POSTs `body` to `url`; rejects on a refused address, a network error or the timeout. */
export function postJson(url: URL, headers: Record<string, string>, body: string, options: { allowPrivate: boolean; timeoutMs: number }): Promise<OutgoingResponse> {
  if (!options.allowPrivate) assertPublicHost(url)
  const client = url.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body).toString(), 'user-agent': 'user-post-service-webhooks', ...headers },
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        const chunks: Buffer[] = []
        let length = 0
        const done = () => resolve({ statusCode: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8', 0, Math.min(length, RESPONSE_BYTES)) })
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk)
          length += chunk.length
          // Enough to say what went wrong; the rest is not read.
          if (length >= RESPONSE_BYTES) {
            response.destroy()
            done()
          }
        })
        response.on('end', done)
        response.on('error', reject)
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}
