// Example values for every mail, as the services that send them pass them: what a superuser's
// preview renders (GET /api/v2/admin/mail-templates/{name}/preview) and what the tests render in
// every language.
import type { MailTemplateName } from './mail.js'
import type { MailValues } from './templates.js'
import { duration, phrase } from './templates.js'

const LINK = 'https://app.example.com/account/link?token=EXAMPLE'
const NOW = new Date('2026-11-27T10:15:00Z')

export const TEMPLATE_SAMPLES: Record<MailTemplateName, MailValues> = {
  'verify-email': { name: 'Ada Lovelace', email: 'ada@example.com', link: LINK, valid_for: duration(24 * 60) },
  'reset-password': { name: 'Ada Lovelace', link: LINK, valid_for: duration(60) },
  'email-changed': { name: 'Ada Lovelace', email: 'ada@example.com', new_email: 'ada@example.org', undo_link: LINK, undo_valid_for: duration(7 * 1440) },
  'email-login': { name: 'Ada Lovelace', link: LINK, code: '482913', valid_for: duration(15) },
  'reauthentication-code': { name: 'Ada Lovelace', code: '482913', valid_for: duration(10) },
  'ways-in-ended': {
    name: 'Ada Lovelace',
    reason: phrase('reason.password_reset.adopted'),
    ended: [phrase('ended.sessions', { count: 2 }), phrase('ended.api_keys', { count: 1 }), phrase('ended.passkey', { name: 'Old laptop' }), phrase('ended.identity', { provider: 'github' }), phrase('ended.password'), phrase('ended.second_factor')],
    remaining: [phrase('remaining.password'), phrase('remaining.passkey', { name: 'Phone' }), phrase('remaining.identity', { provider: 'corp' }), phrase('remaining.authenticator_app'), phrase('remaining.reset')],
  },
  'org-invitation': { org: 'Analytical Engines', inviter: 'Charles Babbage', role: phrase('role.admin'), link: LINK, valid_for: duration(7 * 1440) },
  'impersonation-started': { name: 'Ada Lovelace', mode: phrase('mode.read_only'), reason: 'ticket #1: cannot see drafts', duration: duration(15) },
  'account-deletion-scheduled': { name: 'Ada Lovelace', due: new Date('2026-12-11T10:15:00Z'), days: duration(14 * 1440), link: LINK },
  'new-device-sign-in': {
    name: 'Ada Lovelace',
    time: NOW,
    method: phrase('method.password'),
    browser: phrase('device', { browser: 'Firefox', os: 'Linux', platform: 'desktop' }),
    network: phrase('network.near', { network: '203.0.113.0/24', place: 'Berlin, Germany' }),
    link: LINK,
    valid_for: duration(7 * 1440),
  },
  'data-export-ready': { name: 'Ada Lovelace', link: LINK, valid_for: duration(48 * 60), expires: new Date('2026-12-04T10:15:00Z') },
  'new-reply': { name: 'Ada Lovelace', who: 'Charles Babbage', title: 'On the Analytical Engine', text: 'The engine weaves algebraic patterns as the Jacquard loom weaves flowers and leaves.' },
  'report-resolved': { name: 'Ada Lovelace', target: phrase('report.target.comment'), outcome: phrase('report.outcome.actioned') },
}
