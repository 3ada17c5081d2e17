/** The name of the OAuth2 password-flow security scheme in every version's OpenAPI document. */
export const SECURITY_SCHEME = 'OAuth2PasswordBearer'
/** The API-key scheme: a key in the X-API-Key header. */
export const API_KEY_SCHEME = 'ApiKeyHeader'

/** `security` for routes only a logged-in user may call (keys, sessions, passwords, email). */
export const bearer: Record<string, string[]>[] = [{ [SECURITY_SCHEME]: [] }]

/** `security` for routes a logged-in user or an API key may call. */
export const bearerOrApiKey: Record<string, string[]>[] = [{ [SECURITY_SCHEME]: [] }, { [API_KEY_SCHEME]: [] }]

/** `security` for public routes whose answer depends on who asks (a post's readers): anonymous, a logged-in user or an API key. */
export const optionalBearerOrApiKey: Record<string, string[]>[] = [{}, ...bearerOrApiKey]
