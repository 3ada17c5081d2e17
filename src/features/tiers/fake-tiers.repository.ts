// The tiers' store in memory, for service tests that need no database (tiers.unit.test.ts): the
// same functions as tiers.repository.ts, with its unique name refused as the drivers refuse it.
import type { TierQuota, TierRow, TiersRepository } from './tiers.repository.js'

export function fakeTiersRepository(seed: readonly Omit<TierRow, 'id' | 'created_at'>[] = []): TiersRepository {
  const rows = new Map<number, TierRow>()
  let nextId = 1
  const insert = (name: string, quota: TierQuota = {}): TierRow => {
    if ([...rows.values()].some((row) => row.name === name)) throw Object.assign(new Error('duplicate key value violates unique constraint "tiers_name_key"'), { code: '23505', constraint: 'tiers_name_key' })
    const row: TierRow = { id: nextId++, name, created_at: new Date().toISOString(), storage_bytes: quota.storage_bytes ?? null, storage_files: quota.storage_files ?? null }
    rows.set(row.id, row)
    return row
  }
  for (const row of seed) insert(row.name, { storage_bytes: row.storage_bytes === null ? null : Number(row.storage_bytes), storage_files: row.storage_files })
  const repository: TiersRepository = {
    listTiers: async () => [...rows.values()].map((row) => ({ ...row })),
    findTierById: async (id) => (rows.has(id) ? { ...rows.get(id)! } : undefined),
    findTierByName: async (name) => [...rows.values()].find((row) => row.name === name),
    insertTier: async (name, quota) => insert(name, quota),
    updateTierQuota: async (id, quota) => {
      const row = rows.get(id)
      if (!row) return undefined
      Object.assign(row, quota)
      return { ...row }
    },
    deleteTier: async (id) => rows.delete(id),
    in: () => repository,
  }
  return repository
}
