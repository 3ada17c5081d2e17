// What an alert says about a device and a place, from the request alone: the browser family,
// operating system and platform from the user agent (user-agent.ts: ua-parser-js 1.x, MIT; 2.x
// is AGPL), and the address's network (/24 for IPv4, /48 for IPv6), never the address itself.
import ipaddr from 'ipaddr.js'

import { addressNetwork } from '../rate-limits/index.js'

export interface Device {
  browser: string
  os: string
  /** desktop, mobile, tablet or another device type the parser names. */
  platform: string
  fingerprint: string
}

/** The network an address belongs to, as an alert names it (the limiter's grouping): 203.0.113.0/24, 2001:db8:1::/48. */
export function networkOf(address: string | null): string {
  return address !== null && ipaddr.isValid(address) ? addressNetwork(address, 48) : 'an unknown network'
}
