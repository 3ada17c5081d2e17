// The organizations' memberships in memory, for the role rules' unit tests (orgs.unit.test.ts):
// the functions of orgs.repository.ts those rules call, over a map of organization to members.
// A function the fake does not hold throws, naming itself, so a test never passes on one it skipped.
import type { OrgsRepository } from './orgs.repository.js'

export function fakeOrgsRepository(members: Map<number, Map<number, string>>): OrgsRepository {
  const of = (orgId: number) => members.get(orgId) ?? new Map<number, string>()
  const held: Partial<OrgsRepository> = {
    lockOrg: async () => undefined,
    findRole: async (orgId, userId) => of(orgId).get(userId),
    countOwners: async (orgId) => [...of(orgId).values()].filter((role) => role === 'owner').length,
    setRole: async (orgId, userId, role) => of(orgId).has(userId) && (of(orgId).set(userId, role), true),
    deleteMembership: async (orgId, userId) => of(orgId).delete(userId),
  }
  const repository = new Proxy(held, {
    get(target, name: string) {
      if (name === 'in') return () => repository
      const found = target[name as keyof OrgsRepository]
      if (found === undefined) throw new Error(`the fake orgs repository has no ${name}`)
      return found
    },
  }) as OrgsRepository
  return repository
}
