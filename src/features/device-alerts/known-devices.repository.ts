// SQL for the devices each account was signed in to from.
import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { Device } from './device.js'

/**
 * Records a sign-in from `device`: true when the account had never been signed in to from it
 * (the row is new), false when it had (its last sighting moves). One statement each way, so two
 * sign-ins at once from a new device make one new row.
 */
export async function recordDevice(db: Executor, userId: number, device: Device): Promise<boolean> {
  const now = nowIso()
  const inserted = await db
    .insertInto('known_devices')
    .values({ user_id: userId, fingerprint: device.fingerprint, browser: device.browser, os: device.os, platform: device.platform, first_seen_at: now, last_seen_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'fingerprint']).doNothing())
    .executeTakeFirst()
  if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return true
  await db.updateTable('known_devices').set({ last_seen_at: now }).where('user_id', '=', userId).where('fingerprint', '=', device.fingerprint).execute()
  return false
}

/** How many devices the account was signed in to from. */
export async function countDevices(db: Executor, userId: number): Promise<number> {
  const { count } = await db.selectFrom('known_devices').select((eb) => eb.fn.countAll<number | string>().as('count')).where('user_id', '=', userId).executeTakeFirstOrThrow()
  return Number(count)
}

/** The devices the account was signed in to from, most recently seen first. */
export function devicesOf(db: Executor, userId: number) {
  return db.selectFrom('known_devices').select(['browser', 'os', 'platform', 'first_seen_at', 'last_seen_at']).where('user_id', '=', userId).orderBy('last_seen_at', 'desc').execute()
}

/** This feature's data access for its service, bound to the database or a unit of work (src/db/repository.ts). */
export const knownDevicesFunctions = { recordDevice, countDevices, devicesOf }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const knownDevicesReadTargets: ReadTargets<typeof knownDevicesFunctions> = {
  recordDevice: 'write',
  countDevices: 'primary',
  devicesOf: 'primary',
}

export type KnownDevicesRepository = Repository<typeof knownDevicesFunctions>
