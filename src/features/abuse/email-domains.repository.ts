import type { Selectable } from 'kysely'

import type { ReadTargets } from '../../db/replicas/read-targets.js'
import type { Repository } from '../../db/repository.js'
import type { Executor } from '../../db/schema.js'
import { nowIso } from '../../shared/timestamps.js'
import type { EmailDomainRulesTable } from './email-domains.table.js'

export type EmailDomainRuleRow = Selectable<EmailDomainRulesTable>

export function listEmailDomainRules(db: Executor): Promise<EmailDomainRuleRow[]> {
  return db.selectFrom('email_domain_rules').selectAll().orderBy('domain').execute()
}

/** Sets the domain's rule, replacing the one it had. */
export function putEmailDomainRule(db: Executor, domain: string, action: EmailDomainRulesTable['action']): Promise<EmailDomainRuleRow> {
  return db
    .insertInto('email_domain_rules')
    .values({ domain, action, created_at: nowIso() })
    .onConflict((conflict) => conflict.column('domain').doUpdateSet({ action, created_at: nowIso() }))
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function deleteEmailDomainRule(db: Executor, domain: string): Promise<boolean> {
  const result = await db.deleteFrom('email_domain_rules').where('domain', '=', domain).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** This feature's data access for its service, bound to the database (src/db/repository.ts). */
export const emailDomainsFunctions = { listEmailDomainRules, putEmailDomainRule, deleteEmailDomainRule }
/** Where each function runs when read replicas are configured (docs/deploy.md, "Scale out"). */
export const emailDomainsReadTargets: ReadTargets<typeof emailDomainsFunctions> = {
  listEmailDomainRules: 'primary',
  putEmailDomainRule: 'write',
  deleteEmailDomainRule: 'write',
}

export type EmailDomainsRepository = Repository<typeof emailDomainsFunctions>
