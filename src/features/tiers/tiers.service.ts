// Subscription tiers: anyone may read them; only superusers manage them.
import { uniqueViolation } from '../../db/errors.js'
import type { Actor } from '../../shared/actor.js'
import { assertSuperuser,DomainError } from '../../shared/errors.js'
import type { Tier } from './tier.js'
import { toTier } from './tier.js'
import type { TiersRepository } from './tiers.repository.js'

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

  async create(actor: Actor, name: string): Promise<Tier> {
    assertSuperuser(actor)
    try {
      return toTier(await this.tiers.insertTier(name))
    } catch (error) {
      if (uniqueViolation(error)) throw new DomainError('conflict', TIER_EXISTS, { code: 'tier_exists' })
      throw error
    }
  }

  async delete(actor: Actor, id: number): Promise<void> {
    assertSuperuser(actor)
    if (!(await this.tiers.deleteTier(id))) tierNotFound()
  }
}
