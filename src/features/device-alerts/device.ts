// What an alert says about a device and a place, from the request alone: the browser family,
// operating system and platform from the user agent (ua-parser-js 1.x, MIT; 2.x is AGPL), and the
// address's network (/24 for IPv4, /48 for IPv6), never the address itself.
import { createHash } from 'node:crypto'

import ipaddr from 'ipaddr.js'
import { UAParser } from 'ua-parser-js'

export interface Device {
  browser: string
  os: string
  /** desktop, mobile, tablet or another device type the parser names. */
  platform: string
  fingerprint: string
}

const UNKNOWN = 'Unknown'

export function deviceOf(userAgent: string | null): Device {
  const parsed = new UAParser(userAgent ?? '').getResult()
  const browser = (parsed.browser.name ?? UNKNOWN).slice(0, 64)
  const os = (parsed.os.name ?? UNKNOWN).slice(0, 64)
  const platform = (parsed.device.type ?? 'desktop').slice(0, 16)
  const fingerprint = createHash('sha256').update(`${browser}\n${os}\n${platform}`).digest('hex')
  return { browser, os, platform, fingerprint }
}

/** The network an address belongs to, as an alert names it: 203.0.113.0/24, 2001:db8:1::/48. */
export function networkOf(address: string | null): string {
  if (address === null || !ipaddr.isValid(address)) return 'an unknown network'
  let parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  const bits = parsed.kind() === 'ipv4' ? 24 : 48
  const bytes = parsed.toByteArray().map((byte, index) => (index * 8 >= bits ? 0 : index * 8 + 8 > bits ? byte & (0xff << (8 - (bits - index * 8))) : byte))
  return `${ipaddr.fromByteArray(bytes).toString()}/${bits}`
}
