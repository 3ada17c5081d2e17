// Which email domains may sign up or be moved to: with BLOCK_DISPOSABLE_EMAILS, none that
// mailchecker lists as disposable; and, always, the superusers' own lists, by registrable domain
// (punycode-normalised, so x.mailinator.com and xn--… spellings are the domain they belong to).
// An allow entry wins over both the deny list and mailchecker.
import type * as PublicSuffixes from 'tldts'

import type { Actor } from '../../shared/actor.js'
import { assertSuperuser, DomainError } from '../../shared/errors.js'
import type { ClientInfo, SecurityEventService } from '../security-events/index.js'
import type { EmailDomainsRepository } from './email-domains.repository.js'

export const EMAIL_DOMAIN_BLOCKED = 'Addresses at this domain cannot be used'

/** The host of an address (or a domain as given), in ASCII (punycode), lower case; undefined when it is none. */
function asciiHostOf(addressOrDomain: string): string | undefined {
  const host = (addressOrDomain.includes('@') ? addressOrDomain.slice(addressOrDomain.lastIndexOf('@') + 1) : addressOrDomain).trim().toLowerCase().replace(/\.$/, '')
  if (host === '') return undefined
  try {
    return new URL(`http://${host}`).hostname
  } catch {
    return undefined
  }
}

// The public-suffix list (tldts) and the disposable-domain list (mailchecker, about a megabyte)
// are loaded the first time a rule or BLOCK_DISPOSABLE_EMAILS needs them, not at start.
let publicSuffixes: Promise<typeof PublicSuffixes> | undefined
const loadPublicSuffixes = () => (publicSuffixes ??= import('tldts'))
let disposableDomains: Promise<{ isValid(email: string): boolean }> | undefined
const loadDisposableDomains = () => (disposableDomains ??= import('mailchecker').then((module) => module.default))

/** The domain an address belongs to: its registrable domain (x.mailinator.com is mailinator.com), in ASCII. */
export async function registrableDomainOf(addressOrDomain: string): Promise<string | undefined> {
  const ascii = asciiHostOf(addressOrDomain)
  return ascii === undefined ? undefined : ((await loadPublicSuffixes()).getDomain(ascii) ?? ascii)
}

/** A superuser's rule for a registrable domain. */
export interface EmailDomainRule {
  domain: string
  action: 'allow' | 'deny'
  created_at: Date | string
}

const RULES_CACHE_MS = 5_000

export class EmailDomainPolicy {
  private cached: { at: number; allow: Set<string>; deny: Set<string> } | undefined

  constructor(
    private readonly repository: EmailDomainsRepository,
    private readonly blockDisposable: boolean,
    private readonly securityEvents: SecurityEventService,
    private readonly blocked: () => void = () => {},
  ) {}

  /** 400 `email_domain_blocked`, the same for every reason, before anything is looked up about the address's account. */
  async assertAllowed(email: string, client: ClientInfo | null, userId: number | null = null): Promise<void> {
    if (await this.allows(email)) return
    this.blocked()
    await this.securityEvents.record('email_domain_blocked', userId, client)
    throw new DomainError('invalid', EMAIL_DOMAIN_BLOCKED, { code: 'email_domain_blocked' })
  }

  async allows(email: string): Promise<boolean> {
    const host = asciiHostOf(email)
    if (host === undefined) return true
    const { allow, deny } = await this.currentRules()
    // No rule and no list: nothing to look up (the usual sign-up).
    if (allow.size === 0 && deny.size === 0 && !this.blockDisposable) return true
    const domain = (await loadPublicSuffixes()).getDomain(host) ?? host
    if (allow.has(domain)) return true
    if (deny.has(domain)) return false
    // mailchecker checks the host and every parent of it against its list.
    return !this.blockDisposable || (await loadDisposableDomains()).isValid(`x@${host}`)
  }

  async rules(): Promise<EmailDomainRule[]> {
    return this.repository.listEmailDomainRules()
  }

  /** A rule changed here is seen at once here, and within seconds in other processes. */
  async setRule(actor: Actor, domain: string, action: 'allow' | 'deny'): Promise<EmailDomainRule> {
    assertSuperuser(actor)
    const row = await this.repository.putEmailDomainRule(domain, action)
    this.cached = undefined
    return row
  }

  async removeRule(actor: Actor, domain: string): Promise<boolean> {
    assertSuperuser(actor)
    const removed = await this.repository.deleteEmailDomainRule(domain)
    this.cached = undefined
    return removed
  }

  private async currentRules() {
    if (this.cached && Date.now() - this.cached.at < RULES_CACHE_MS) return this.cached
    const rows = await this.repository.listEmailDomainRules()
    this.cached = {
      at: Date.now(),
      allow: new Set(rows.filter((row) => row.action === 'allow').map((row) => row.domain)),
      deny: new Set(rows.filter((row) => row.action === 'deny').map((row) => row.domain)),
    }
    return this.cached
  }
}
