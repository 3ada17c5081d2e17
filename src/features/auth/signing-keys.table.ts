// Keys access tokens are signed with (migration 2026-11-26-02).
import type { NullableTimestamp, Timestamp } from '../../db/column-types.js'

export interface SigningKeysTable {
  /** The public key's RFC 7638 thumbprint: the tokens' `kid`. */
  kid: string
  algorithm: string
  /** PKCS #8 PEM, sealed under SECRET_KEY (SecretBox). */
  private_key: string
  /** The public JWK, as /.well-known/jwks.json publishes it. */
  public_jwk: string
  created_at: Timestamp
  /** Set by a rotation: no longer signs, still verifies until its tokens expire. */
  retired_at: NullableTimestamp
}

// This slice's tables in the database's type (src/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    signing_keys: SigningKeysTable
  }
}
