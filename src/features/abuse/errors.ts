// The error codes this slice adds to the table clients match on (src/shared/errors.ts has the
// general ones; docs/api.md and both OpenAPI documents list them all). A code once published keeps
// its meaning.

export const abuseErrorCodes = {
  captcha_required: 'This door asks for a CAPTCHA now (always, or because risk is raised): render the widget with `provider` and `site_key` and send its token as `X-Captcha-Token` or `captcha_token` (400).',
  captcha_failed: 'The CAPTCHA token was refused, used already or expired: solve the widget again (400; carries `provider` and `site_key`).',
  password_breached: 'The password appears in known data breaches (`breach_count` says how often): choose another (400).',
  email_domain_blocked: 'Addresses at this domain cannot be used here (400). The same answer for every reason a domain is blocked.',
  email_domain_rule_not_found: 'No email domain rule for this domain (404).',
} as const

declare module '../../shared/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface SliceErrorCodes extends Record<keyof typeof abuseErrorCodes, string> {}
}
