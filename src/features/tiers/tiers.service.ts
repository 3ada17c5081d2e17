// Subscription tiers: anyone may read them; only superusers manage them.
import { uniqueViolation } from '../../db/errors.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser,DomainError } from '../../shared/errors.js'
import type { Tier } from './tier.js'
import { toTier } from './tier.js'
import type { TiersRepository } from './tiers.repository.js'

/** A tier's storage quota as set: undefined leaves a field as it is, null means the default. */
export interface StorageQuota {
  bytes?: number | null
  files?: number | null
}

export const TIER_NOT_FOUND = 'Tier not found'
export const TIER_EXISTS = 'Tier already exists'

function tierNotFound(): never {
  throw new DomainError('not_found', TIER_NOT_FOUND, { code: 'tier_not_found' })
}

export class TierService {
  constructor(private readonly tiers: TiersRepository) {}

  async list(): Promise<Tier[]> {
    return (await this.tiers.listTiers()).map(toTier)
  }

  async get(id: number): Promise<Tier> {
    const row = await this.tiers.findTierById(id)
    return row ? toTier(row) : tierNotFound()
  }

  async getByName(name: string): Promise<Tier> {
    const row = await this.tiers.findTierByName(name)
    return row ? toTier(row) : tierNotFound()
  }

  async create(actor: Actor, name: string, quota: StorageQuota = {}): Promise<Tier> {
    assertSuperuser(actor)
    try {
      return toTier(await this.tiers.insertTier(name, { storage_bytes: quota.bytes, storage_files: quota.files }))
    } catch (error) {
      if (uniqueViolation(error)) throw new DomainError('conflict', TIER_EXISTS, { code: 'tier_exists' })
      throw error
    }
  }

  /** Sets the tier's storage quota; a field left out stays, null returns it to the default. */
  async setStorageQuota(actor: Actor, id: number, quota: StorageQuota): Promise<Tier> {
    assertSuperuser(actor)
    const changes = { ...(quota.bytes === undefined ? {} : { storage_bytes: quota.bytes }), ...(quota.files === undefined ? {} : { storage_files: quota.files }) }
    const row = Object.keys(changes).length === 0 ? await this.tiers.findTierById(id) : await this.tiers.updateTierQuota(id, changes)
    return row ? toTier(row) : tierNotFound()
  }

  /** The storage quota of a user on the tier (none: every field null, the defaults). */
  async storageQuotaOf(tierId: number | null): Promise<{ bytes: number | null; files: number | null }> {
    const row = tierId === null ? undefined : await this.tiers.findTierById(tierId)
    const bytes = row?.storage_bytes ?? null
    return { bytes: bytes === null ? null : Number(bytes), files: row?.storage_files ?? null }
  }

  async delete(actor: Actor, id: number): Promise<void> {
    assertSuperuser(actor)
    if (!(await this.tiers.deleteTier(id))) tierNotFound()
  }
}
