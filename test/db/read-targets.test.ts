// Where every repository function runs with read replicas, checked from the repositories
// themselves (src/db/replicas/read-targets.ts): each module's functions have a declaration, none is
// left out or made up; a function declared replica-safe writes nothing; and the reads that decide
// who may do what (docs/deploy.md, "Scale out") are never declared replica-safe, so a revocation,
// a ban or a removal holds on the very next request whatever the replicas' lag.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import type { ReadTarget } from '../../src/db/replicas/read-targets.js'

const FEATURES = path.join(import.meta.dirname, '../../src/features')
const TARGETS: readonly ReadTarget[] = ['replica', 'primary', 'write', 'bookkeeping']
/** What a statement that changes rows is built with. */
const WRITES = /\b(insertInto|updateTable|deleteFrom|mergeInto|replaceInto|forUpdate)\b|\b(insert into|update \w+ set|delete from|for update)\b/i

/**
 * The repositories whose every read decides who may do what or holds one-time state: sessions and
 * revocations, keys, one-time secrets, limits, second factors, passkeys and identities, signing
 * keys, impersonation, email-domain rules, ways in, blocks and tiers. docs/deploy.md names them.
 */
const DECIDING_REPOSITORIES = [
  'auth/auth.repository.ts',
  'auth/signing-keys.repository.ts',
  'api-keys/api-keys.repository.ts',
  'one-time-secrets/one-time-secrets.repository.ts',
  'rate-limits/rate-limits.repository.ts',
  'mfa/mfa.repository.ts',
  'passkeys/passkeys.repository.ts',
  'identities/identities.repository.ts',
  'moderation/impersonations.repository.ts',
  'abuse/email-domains.repository.ts',
  'sign-in-methods/sign-in-methods.repository.ts',
  'blocks/blocks.repository.ts',
  'tiers/tiers.repository.ts',
]
/** The deciding reads of repositories that also hold content: a user's session, credentials and ban; an organization role. */
const DECIDING_READS: Record<string, string[]> = {
  'users/users.repository.ts': ['findUserById', 'findAnyUserById', 'findUserInLiveSession', 'findCaller', 'findCredentials', 'findLoginAccount', 'findHashedPassword', 'findActiveUserByEmail', 'findMailboxProven', 'findBanMessage', 'findServiceAccount'],
  'orgs/orgs.repository.ts': ['findOrgWithRole', 'listRolesOf', 'findRoleAndRule', 'findMfaRules', 'findRole', 'countOwners'],
}

interface Declared {
  file: string
  functions: Record<string, (...args: never[]) => unknown>
  targets: Record<string, ReadTarget>
}

async function repositories(): Promise<Declared[]> {
  const found: Declared[] = []
  for (const feature of readdirSync(FEATURES, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)) {
    const folder = path.join(FEATURES, feature)
    for (const name of readdirSync(folder).filter((file) => file.endsWith('.repository.ts'))) {
      const module = (await import(path.join(folder, name))) as Record<string, unknown>
      for (const [exported, value] of Object.entries(module)) {
        if (!exported.endsWith('Functions')) continue
        const targets = module[`${exported.slice(0, -'Functions'.length)}ReadTargets`] as Record<string, ReadTarget> | undefined
        found.push({ file: `${feature}/${name}`, functions: value as Declared['functions'], targets: targets ?? {} })
      }
    }
  }
  return found
}

describe('read targets, from every repository', async () => {
  const declared = await repositories()

  it('finds the repositories (over 35 modules, over 300 functions)', () => {
    expect(new Set(declared.map((entry) => entry.file)).size).toBeGreaterThanOrEqual(35)
    expect(declared.reduce((sum, entry) => sum + Object.keys(entry.functions).length, 0)).toBeGreaterThan(300)
  })

  it.each(declared.map((entry) => [entry.file, entry] as const))('%s declares where each of its functions runs, and nothing else', (_file, { functions, targets }) => {
    expect(Object.keys(targets).sort()).toEqual(Object.keys(functions).sort())
    for (const target of Object.values(targets)) expect(TARGETS).toContain(target)
  })

  it('a function declared replica-safe writes nothing', () => {
    const writing = declared.flatMap(({ file, functions, targets }) =>
      Object.entries(targets)
        .filter(([name, target]) => target === 'replica' && WRITES.test(String(functions[name])))
        .map(([name]) => `${file}: ${name}`),
    )
    expect(writing).toEqual([])
  })

  it('a function that builds a write is declared write or bookkeeping, never a read', () => {
    const misdeclared = declared.flatMap(({ file, functions, targets }) =>
      Object.entries(functions)
        .filter(([name, run]) => WRITES.test(String(run)) && (targets[name] === 'replica' || targets[name] === 'primary'))
        .map(([name]) => `${file}: ${name}`),
    )
    expect(misdeclared).toEqual([])
  })

  it('the reads that decide who may do what never run on a replica', () => {
    const onReplica = declared.flatMap(({ file, targets }) => {
      const deciding = DECIDING_REPOSITORIES.includes(file) ? Object.keys(targets) : (DECIDING_READS[file] ?? [])
      return deciding.filter((name) => targets[name] === 'replica').map((name) => `${file}: ${name}`)
    })
    expect(onReplica).toEqual([])
    for (const [file, names] of Object.entries(DECIDING_READS)) {
      const entry = declared.find((candidate) => candidate.file === file)
      expect(entry, file).toBeDefined()
      for (const name of names) expect(Object.keys(entry!.targets), `${file}: ${name}`).toContain(name)
    }
    for (const file of DECIDING_REPOSITORIES) expect(declared.map((entry) => entry.file)).toContain(file)
  })

  it('docs/deploy.md names every deciding repository', () => {
    const docs = readFileSync(path.join(import.meta.dirname, '../../docs/deploy.md'), 'utf8')
    for (const file of [...DECIDING_REPOSITORIES, ...Object.keys(DECIDING_READS)]) expect(docs, file).toContain(`src/features/${file}`)
  })
})
