// Every error the service sends is `{detail, code}` (a 422 adds `errors`, one per failing field):
// `code` is stable for programs, `detail` a sentence for people.

export interface FieldError {
  loc: (string | number)[]
  msg: string
  type: string
}

export class ApiError extends Error {
  override readonly name = 'ApiError'

  constructor(
    /** The HTTP status (0 when no answer came). */
    readonly status: number,
    /** A stable name to match on: `invalid_credentials`, `email_taken`, `rate_limited`, … */
    readonly code: string,
    /** A sentence for people. */
    readonly detail: string,
    /** A 422's failing fields. */
    readonly errors: FieldError[] = [],
    /** Seconds to wait, from Retry-After (429 and 503). */
    readonly retryAfterSeconds?: number,
    /** With `mfa_required`: the token for `auth.finishSecondFactor` and the factors the account accepts. */
    readonly mfa?: { token: string; methods: string[] },
    /** With `captcha_required` and `captcha_failed`: the widget to render, and then to send its token with the same call (`{ captchaToken }`). */
    readonly captcha?: { provider: string; siteKey: string },
  ) {
    super(`${status} ${code}: ${detail}`)
  }
}

interface Result {
  data?: unknown
  error?: unknown
  response: Response
}

/** The answer's data, or an ApiError carrying its status, code and detail. */
export async function unwrap<R extends Result>(result: R | Promise<R>): Promise<NonNullable<R['data']>> {
  const { data, error, response } = await result
  if (response.ok) return data as NonNullable<R['data']>
  const body = (error ?? {}) as { detail?: unknown; code?: unknown; errors?: FieldError[]; mfa_token?: unknown; methods?: unknown; provider?: unknown; site_key?: unknown }
  const retryAfter = Number(response.headers.get('retry-after'))
  throw new ApiError(
    response.status,
    typeof body.code === 'string' ? body.code : 'http_error',
    typeof body.detail === 'string' ? body.detail : response.statusText,
    Array.isArray(body.errors) ? body.errors : [],
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    typeof body.mfa_token === 'string' ? { token: body.mfa_token, methods: Array.isArray(body.methods) ? body.methods.map(String) : [] } : undefined,
    typeof body.provider === 'string' && typeof body.site_key === 'string' ? { provider: body.provider, siteKey: body.site_key } : undefined,
  )
}
