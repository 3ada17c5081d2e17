/**
 * The link a mail carries: the app's page when a template with {token} is configured (VERIFY_EMAIL_URL,
 * INVITATION_URL …), else the service's own page (`ownPage`, absolute) with ?token=.
 */
export function mailedLink(template: string | undefined, ownPage: string, token: string): string {
  const encoded = encodeURIComponent(token)
  return template ? template.replaceAll('{token}', encoded) : `${ownPage}?token=${encoded}`
}
