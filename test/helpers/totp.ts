// TOTP codes computed in the test from the secret, by RFC 6238's own recipe (HMAC-SHA-1 over the
// 30-second step, dynamic truncation, 6 digits), apart from the library the service uses; and
// enrolment through the API.
import { createHmac } from 'node:crypto'

import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'

import { V2 } from './users.js'

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

function base32Bytes(secret: string): Buffer {
  let bits = ''
  for (const character of secret.replace(/=+$/, '').toUpperCase()) bits += BASE32.indexOf(character).toString(2).padStart(5, '0')
  const bytes = bits.match(/.{8}/g) ?? []
  return Buffer.from(bytes.map((byte) => parseInt(byte, 2)))
}

/** The step (30-second window) of now, or of `atMs`. */
export const stepNow = (atMs = Date.now()) => Math.floor(atMs / 30_000)

/** The 6-digit code of `step` for `secret`. */
export function totpCode(secret: string, step: number): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(step))
  const mac = createHmac('sha1', base32Bytes(secret)).update(counter).digest()
  const offset = mac[mac.length - 1]! & 0x0f
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000
  return String(value).padStart(6, '0')
}

/** A well-formed code that is none of the codes of the steps around now (so it is surely wrong). */
export function aWrongCode(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((offset) => totpCode(secret, stepNow() + offset)))
  let candidate = 0
  while (near.has(String(candidate).padStart(6, '0'))) candidate++
  return String(candidate).padStart(6, '0')
}

/**
 * Waits, when the current step ends within `marginMs`, until the next one begins: a test that
 * uses the codes of the steps around now then cannot see the server's clock pass into another step.
 */
export async function awayFromStepEdge(marginMs = 5_000): Promise<number> {
  const left = 30_000 - (Date.now() % 30_000)
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50))
  return stepNow()
}

export interface Enrolled {
  secret: string
  recoveryCodes: string[]
  /** The step whose code confirmed the authenticator (the one before now): later codes are the caller's. */
  confirmedStep: number
}

/** Sets up and confirms TOTP for the caller, confirming with the previous step's code (drift), so the current and next are unused. */
export async function enrolTotp(app: FastifyInstance, headers: Record<string, string>): Promise<Enrolled> {
  const setup = await app.inject({ method: 'POST', url: `${V2}/users/me/mfa/totp`, headers })
  expect(setup.statusCode, setup.body).toBe(200)
  const { secret } = setup.json() as { secret: string }
  const step = (await awayFromStepEdge()) - 1
  const confirmed = await app.inject({ method: 'POST', url: `${V2}/users/me/mfa/totp/confirm`, headers, payload: { code: totpCode(secret, step) } })
  expect(confirmed.statusCode, confirmed.body).toBe(200)
  return { secret, recoveryCodes: (confirmed.json() as { recovery_codes: string[] }).recovery_codes, confirmedStep: step }
}
