// The superusers' email domain lists (migration 2026-12-01-01-abuse-protection).
import type { Timestamp } from '../../db/column-types.js'

export interface EmailDomainRulesTable {
  /** A registrable domain, in ASCII. */
  domain: string
  action: 'allow' | 'deny'
  created_at: Timestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    email_domain_rules: EmailDomainRulesTable
  }
}
