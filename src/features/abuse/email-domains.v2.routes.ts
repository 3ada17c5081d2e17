// /api/v2/admin/email-domains: the superusers' allow and deny lists of address domains.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

import { protectedRoute, superusersOnly } from '../../api/common/protected-route.js'
import { errorResponses, MessageResponse } from '../../api/common/responses.js'
import { tokenCallerOf } from '../../plugins/authentication.js'
import { DomainError, RuleViolation } from '../../shared/errors.js'
import { toIsoString } from '../../shared/timestamps.js'
import type { EmailDomainRule } from './email-domains.js'
import { registrableDomainOf } from './email-domains.js'

const tags = ['admin']

const Domain = Type.String({ minLength: 1, maxLength: 253, pattern: '^[^\\s@/]+$', description: 'A domain; kept as its registrable domain in ASCII (x.mailinator.com is mailinator.com)' })
const EmailDomainRuleRead = Type.Object(
  { domain: Type.String(), action: Type.Union([Type.Literal('allow'), Type.Literal('deny')]), created_at: Type.String({ format: 'date-time' }) },
  { title: 'EmailDomainRule' },
)
const DomainParams = Type.Object({ domain: Domain })
const RuleBody = Type.Object(
  { action: Type.Union([Type.Literal('allow'), Type.Literal('deny')], { description: 'allow: never blocked (even when listed as disposable); deny: always blocked' }) },
  { additionalProperties: false, title: 'EmailDomainRuleWrite' },
)

const toRuleRead = (row: EmailDomainRule) => ({ domain: row.domain, action: row.action, created_at: toIsoString(row.created_at) })

const emailDomainRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { emailDomains } = app.services
  const superuser = (request: Parameters<typeof tokenCallerOf>[0]) => tokenCallerOf(request).user
  const domainOf = async (given: string): Promise<string> => {
    const domain = await registrableDomainOf(given)
    if (domain === undefined) throw new RuleViolation('domain', 'Not a domain', 'domain', { location: 'query' })
    return domain
  }

  app.get(
    '/email-domains',
    protectedRoute(app, { tags, summary: 'The allow and deny lists of address domains', response: { 200: Type.Array(EmailDomainRuleRead), ...errorResponses(403) } }, superusersOnly),
    async () => (await emailDomains.rules()).map(toRuleRead),
  )

  app.put(
    '/email-domains/:domain',
    protectedRoute(
      app,
      { tags, summary: "Allow or deny a domain's addresses at sign-up and email change", params: DomainParams, body: RuleBody, response: { 200: EmailDomainRuleRead, ...errorResponses(403, 422) } },
      { ...superusersOnly, wayIn: 'none' },
    ),
    async (request) => toRuleRead(await emailDomains.setRule(superuser(request), await domainOf(request.params.domain), request.body.action)),
  )

  app.delete(
    '/email-domains/:domain',
    protectedRoute(app, { tags, summary: "Remove a domain's rule", params: DomainParams, response: { 200: MessageResponse, ...errorResponses(403, 404, 422) } }, { ...superusersOnly, wayIn: 'none' }),
    async (request) => {
      if (!(await emailDomains.removeRule(superuser(request), await domainOf(request.params.domain)))) {
        throw new DomainError('not_found', 'No rule for this domain', { code: 'email_domain_rule_not_found' })
      }
      return { message: 'Rule removed' }
    },
  )
}

export default emailDomainRoutes
