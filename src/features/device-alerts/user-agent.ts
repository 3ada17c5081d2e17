// A browser's user agent read as a device (browser, system, platform): ua-parser-js, loaded with the
// first sign-in the new-device alerts look at, not at start.
import { createHash } from 'node:crypto'

import { UAParser } from 'ua-parser-js'

import type { Device } from './device.js'

const UNKNOWN = 'Unknown'

export function deviceOf(userAgent: string | null): Device {
  const parsed = new UAParser(userAgent ?? '').getResult()
  const browser = (parsed.browser.name ?? UNKNOWN).slice(0, 64)
  const os = (parsed.os.name ?? UNKNOWN).slice(0, 64)
  const platform = (parsed.device.type ?? 'desktop').slice(0, 16)
  const fingerprint = createHash('sha256').update(`${browser}\n${os}\n${platform}`).digest('hex')
  return { browser, os, platform, fingerprint }
}
