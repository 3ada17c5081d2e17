// The client a per-address budget counts. An IPv4 address is one client; an IPv6 client usually
// holds a whole /64 (or more), so counting each of its addresses apart would hand it 2^64 budgets.
import { isIP } from 'node:net'

import ipaddr from 'ipaddr.js'

/**
 * The group `address` is counted in: the IPv4 address itself (IPv4-mapped IPv6 included), or the
 * IPv6 network of `ipv6PrefixBits`. Text that is no IP address (a test's name) stays as it is.
 */
export function addressGroup(address: string, ipv6PrefixBits: number): string {
  if (!ipaddr.isValid(address)) return address
  const parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  const v6 = parsed as ipaddr.IPv6
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString()
  if (ipv6PrefixBits >= 128) return v6.toNormalizedString()
  const bytes = v6.toByteArray()
  for (let bit = ipv6PrefixBits; bit < 128; bit++) bytes[bit >> 3] = (bytes[bit >> 3] ?? 0) & ~(0x80 >> (bit & 7))
  return `${ipaddr.fromByteArray(bytes).toString()}/${ipv6PrefixBits}`
}

/**
 * The network one actor holds around `address`: the /24 of an IPv4 address (IPv4-mapped ones too),
 * or the IPv6 network of `ipv6PrefixBits` (a /64 for risk counts, a /48 for what a mail names).
 */
export function addressNetwork(address: string, ipv6PrefixBits: number): string {
  const group = addressGroup(address, ipv6PrefixBits)
  return isIP(group) === 4 ? `${group.split('.').slice(0, 3).join('.')}.0/24` : group
}
