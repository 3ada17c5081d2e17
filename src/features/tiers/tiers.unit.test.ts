// The tiers' rules on a fake of their store, with no server: who manages them, what a quota left
// out or set to null means, and the refusals' codes. The HTTP contract is tiers.v1.test.ts's and
// the files' quota tests'; a unit test: it runs once.
import { describe, expect, it } from 'vitest'

import { DomainError } from '../../shared/errors.js'
import { fakeTiersRepository } from './fake-tiers.repository.js'
import { TierService } from './tiers.service.js'

const superuser = { id: 1, isSuperuser: true }
const user = { id: 2, isSuperuser: false }
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'done', (error: unknown) => (error instanceof DomainError ? error.code : String(error)))

describe('tiers', () => {
  it('are managed by superusers only', async () => {
    const tiers = new TierService(fakeTiersRepository([{ name: 'free', storage_bytes: null, storage_files: null }]))
    expect(await codeOf(tiers.create(user, 'pro'))).toBe('forbidden')
    expect(await codeOf(tiers.setStorageQuota(user, 1, { bytes: 1 }))).toBe('forbidden')
    expect(await codeOf(tiers.delete(user, 1))).toBe('forbidden')
    expect((await tiers.list()).map((tier) => tier.name)).toEqual(['free'])
  })

  it('refuse a second tier of one name, and name the tier that is not there', async () => {
    const tiers = new TierService(fakeTiersRepository())
    await tiers.create(superuser, 'pro')
    expect(await codeOf(tiers.create(superuser, 'pro'))).toBe('tier_exists')
    expect(await codeOf(tiers.get(99))).toBe('tier_not_found')
    expect(await codeOf(tiers.getByName('gold'))).toBe('tier_not_found')
    expect(await codeOf(tiers.setStorageQuota(superuser, 99, { bytes: 1 }))).toBe('tier_not_found')
    expect(await codeOf(tiers.delete(superuser, 99))).toBe('tier_not_found')
  })

  it('keep a quota field left out, return one set to null to the default, and give no tier the defaults', async () => {
    const tiers = new TierService(fakeTiersRepository())
    const pro = await tiers.create(superuser, 'pro', { bytes: 5_000_000, files: 100 })
    expect(await tiers.setStorageQuota(superuser, pro.id, { files: 200 })).toMatchObject({ storageBytes: 5_000_000, storageFiles: 200 })
    expect(await tiers.setStorageQuota(superuser, pro.id, { bytes: null })).toMatchObject({ storageBytes: null, storageFiles: 200 })
    expect(await tiers.setStorageQuota(superuser, pro.id, {})).toMatchObject({ storageBytes: null, storageFiles: 200 })
    expect(await tiers.storageQuotaOf(pro.id)).toEqual({ bytes: null, files: 200 })
    expect(await tiers.storageQuotaOf(null)).toEqual({ bytes: null, files: null })
    expect(await tiers.storageQuotaOf(99)).toEqual({ bytes: null, files: null })
  })

  it('read a quota PostgreSQL returns as a string (bigint) as a number', async () => {
    const tiers = new TierService(fakeTiersRepository([{ name: 'big', storage_bytes: '9007199254740991', storage_files: null }]))
    expect(await tiers.storageQuotaOf(1)).toEqual({ bytes: 9_007_199_254_740_991, files: null })
    expect((await tiers.get(1)).storageBytes).toBe(9_007_199_254_740_991)
  })
})
