/** The name of the OAuth2 password-flow security scheme in every version's OpenAPI document. */
export const SECURITY_SCHEME = 'OAuth2PasswordBearer'

/** `security` for routes that need a logged-in caller. */
export const bearer = [{ [SECURITY_SCHEME]: [] }]
