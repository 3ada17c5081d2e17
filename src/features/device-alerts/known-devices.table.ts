// The device-alerts slice's table (migration 2026-12-04-01-known-devices).
import type { Timestamp } from '../../db/column-types.js'

export interface KnownDevicesTable {
  user_id: number
  /** sha256 of browser family, operating system and platform. */
  fingerprint: string
  browser: string
  os: string
  platform: string
  first_seen_at: Timestamp
  last_seen_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    known_devices: KnownDevicesTable
  }
}
