// Subscription tiers: anyone may read them; only superusers manage them.
import type { Executor } from '../../db/schema.js'
import { uniqueViolation } from '../../db/errors.js'
import { DomainError, forbidden } from '../../shared/errors.js'
import type { Actor } from '../users/users.service.js'
import * as tiers from './tiers.repository.js'
import type { TierRecord } from './tiers.repository.js'

export const TIER_NOT_FOUND = 'Tier not found'
export const TIER_EXISTS = 'Tier already exists'

export function tierNotFound(): never {
  throw new DomainError('not_found', TIER_NOT_FOUND)
}

export class TierService {
  constructor(private readonly db: Executor) {}

  list(): Promise<TierRecord[]> {
    return tiers.listTiers(this.db)
  }

  async get(id: number): Promise<TierRecord> {
    return (await tiers.findTierById(this.db, id)) ?? tierNotFound()
  }

  /** A tier by id or by name, as the API version in use refers to it. */
  async resolve(reference: number | string): Promise<TierRecord> {
    const tier =
      typeof reference === 'number' ? await tiers.findTierById(this.db, reference) : await tiers.findTierByName(this.db, reference)
    return tier ?? tierNotFound()
  }

  async create(actor: Actor, name: string): Promise<TierRecord> {
    if (!actor.is_superuser) throw forbidden()
    try {
      return await tiers.insertTier(this.db, name)
    } catch (error) {
      if (uniqueViolation(error)) throw new DomainError('conflict', TIER_EXISTS)
      throw error
    }
  }

  async delete(actor: Actor, id: number): Promise<void> {
    if (!actor.is_superuser) throw forbidden()
    if (!(await tiers.deleteTier(this.db, id))) tierNotFound()
  }
}
