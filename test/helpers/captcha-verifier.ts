// A local CAPTCHA verifier speaking the providers' documented siteverify protocol (Turnstile,
// hCaptcha and reCAPTCHA share it): a POSTed form of `secret`, `response` and `remoteip`, answered
// with `{success, "error-codes"}`. Tokens: `pass-…` succeed once (a second use answers
// `timeout-or-duplicate`), `fail-…` fail, `slow-…` never answer in time; Cloudflare's documented
// dummy token succeeds with its documented always-pass test secret.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export const TURNSTILE_TEST_SITE_KEY = '1x00000000000000000000AA'
export const TURNSTILE_TEST_SECRET = '1x0000000000000000000000000000000AA'
export const TURNSTILE_DUMMY_TOKEN = 'XXXX.DUMMY.TOKEN.XXXX'
export const TEST_SECRET = 'local-verifier-secret'

export interface LocalVerifier {
  url: string
  /** Every form received, in order. */
  received: { secret: string; response: string; remoteip: string }[]
  close(): Promise<void>
}

export async function startCaptchaVerifier(): Promise<LocalVerifier> {
  const received: LocalVerifier['received'] = []
  const spent = new Set<string>()
  const server = http.createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      const form = new URLSearchParams(body)
      const entry = { secret: form.get('secret') ?? '', response: form.get('response') ?? '', remoteip: form.get('remoteip') ?? '' }
      received.push(entry)
      const answer = (success: boolean, codes: string[] = []) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success, 'error-codes': codes }))
      if (entry.response.startsWith('slow-')) return
      if (entry.secret !== TEST_SECRET && entry.secret !== TURNSTILE_TEST_SECRET) return answer(false, ['invalid-input-secret'])
      if (entry.secret === TURNSTILE_TEST_SECRET) return answer(entry.response === TURNSTILE_DUMMY_TOKEN, entry.response === TURNSTILE_DUMMY_TOKEN ? [] : ['invalid-input-response'])
      if (spent.has(entry.response)) return answer(false, ['timeout-or-duplicate'])
      spent.add(entry.response)
      return entry.response.startsWith('pass-') ? answer(true) : answer(false, ['invalid-input-response'])
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
