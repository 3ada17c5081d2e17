// What an alert says about a device and a place, from the request alone: the browser family,
// operating system and platform from the user agent (ua-parser-js 1.x, MIT; 2.x is AGPL), and the
// address's network (/24 for IPv4, /48 for IPv6), never the address itself.
import { createHash } from 'node:crypto'

import ipaddr from 'ipaddr.js'
import { UAParser } from 'ua-parser-js'

import { addressNetwork } from '../rate-limits/index.js'

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

/** The network an address belongs to, as an alert names it (the limiter's grouping): 203.0.113.0/24, 2001:db8:1::/48. */
export function networkOf(address: string | null): string {
  return address !== null && ipaddr.isValid(address) ? addressNetwork(address, 48) : 'an unknown network'
}
