// Subscription tiers: anyone may read them; only superusers manage them.
import { uniqueViolation } from '../../db/errors.js'
import type { Executor } from '../../db/schema.js'
import type { Actor } from '../../shared/actor.js'
import { DomainError, assertSuperuser } from '../../shared/errors.js'
import { toTier } from './tier.js'
import type { Tier } from './tier.js'
import * as tiers from './tiers.repository.js'

export const TIER_NOT_FOUND = 'Tier not found'
export const TIER_EXISTS = 'Tier already exists'

function tierNotFound(): never {
  throw new DomainError('not_found', TIER_NOT_FOUND)
}

export class TierService {
  constructor(private readonly db: Executor) {}

  async list(): Promise<Tier[]> {
    return (await tiers.listTiers(this.db)).map(toTier)
  }

  async get(id: number): Promise<Tier> {
    const row = await tiers.findTierById(this.db, id)
    return row ? toTier(row) : tierNotFound()
  }

  async getByName(name: string): Promise<Tier> {
    const row = await tiers.findTierByName(this.db, name)
    return row ? toTier(row) : tierNotFound()
  }

  async create(actor: Actor, name: string): Promise<Tier> {
    assertSuperuser(actor)
    try {
      return toTier(await tiers.insertTier(this.db, name))
    } catch (error) {
      if (uniqueViolation(error)) throw new DomainError('conflict', TIER_EXISTS)
      throw error
    }
  }

  async delete(actor: Actor, id: number): Promise<void> {
    assertSuperuser(actor)
    if (!(await tiers.deleteTier(this.db, id))) tierNotFound()
  }
}
