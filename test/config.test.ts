import { availableParallelism } from 'node:os'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { ConfigError, loadConfig } from '../src/config.js'

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 8000,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      redisUrl: undefined,
      secretKey: undefined,
      nodeEnv: 'development',
      logLevel: 'info',
      userSignup: 'open',
      admin: undefined,
      uploadMaxBytes: 5 * 1024 * 1024,
      accessTokenMinutes: 15,
      refreshTokenDays: 7,
      // Development: generous enough for a person signing up and logging in by hand.
      loginRateLimit: 100,
      passwordResetRateLimit: 50,
      verificationMailRateLimit: 50,
      rateLimits: { signup: { limit: 100, periodSeconds: 3600 } },
      deprecatedVersions: [],
      sunsetDates: {},
      avatarStorage: 'storage',
      cookieSecure: false,
      cookieSameSite: 'lax',
      trustProxy: false,
      emailVisibility: { v1: 'public', v2: 'owner' },
      corsOrigins: { any: false, exact: [], anyPort: ['http://localhost', 'http://127.0.0.1'] },
      signupLogin: true,
      emailLogin: { enabled: true, rateLimit: 50 },
      // Development works from a page on localhost with no setting: the service's own pages on
      // http://localhost, passkeys for localhost, and sign-ins returning to localhost on any port.
      authRedirectOrigins: { exact: ['http://localhost:8000'], anyPort: ['http://localhost', 'http://127.0.0.1'] },
      webauthn: { rpId: 'localhost', rpName: 'localhost', origins: { exact: ['http://localhost:8000'], anyPort: ['http://localhost'] } },
    })
    expect(loadConfig({}).mail.publicUrl).toBe('http://localhost:8000')
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).mail.publicUrl).toBe('http://localhost:9000')
  })

  it('keeps production and tests to PUBLIC_URL alone for redirects and passkeys', () => {
    for (const env of [{ NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(40), MAIL_TRANSPORT: 'log' }, { NODE_ENV: 'test' }]) {
      const config = loadConfig(env)
      expect(config.mail.publicUrl).toBe('http://127.0.0.1:8000')
      expect(config.authRedirectOrigins).toEqual({ exact: ['http://127.0.0.1:8000'], anyPort: [] })
      expect(config.webauthn.origins).toEqual({ exact: ['http://127.0.0.1:8000'], anyPort: [] })
    }
    const production = loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(40), MAIL_TRANSPORT: 'log', PUBLIC_URL: 'https://api.example.com' })
    expect(production.authRedirectOrigins).toEqual({ exact: ['https://api.example.com'], anyPort: [] })
    expect(production.webauthn).toEqual({ rpId: 'api.example.com', rpName: 'api.example.com', origins: { exact: ['https://api.example.com'], anyPort: [] } })
  })

  it('keeps the strict limits and lists no CORS origin outside development', () => {
    for (const env of [{ NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(40), MAIL_TRANSPORT: 'log' }, { NODE_ENV: 'test' }]) {
      const config = loadConfig(env)
      expect(config).toMatchObject({ loginRateLimit: 10, passwordResetRateLimit: 5, verificationMailRateLimit: 5, emailLogin: { enabled: true, rateLimit: 5 }, rateLimits: { signup: { limit: 5, periodSeconds: 3600 } } })
    }
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(40), MAIL_TRANSPORT: 'log' }).corsOrigins).toEqual({ any: false, exact: [], anyPort: [] })
  })

  it('reads CORS_ORIGINS, COOKIE_SAMESITE and EMAIL_VISIBILITY', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:*, https://EXAMPLE.org:8443' }).corsOrigins).toEqual({
      any: false,
      exact: ['https://app.example.com', 'https://example.org:8443'],
      anyPort: ['http://localhost'],
    })
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual({ any: true })
    expect(loadConfig({ COOKIE_SAMESITE: 'none', COOKIE_SECURE: 'true' }).cookieSameSite).toBe('none')
    expect(loadConfig({ EMAIL_VISIBILITY: 'public' }).emailVisibility).toEqual({ v1: 'public', v2: 'public' })
    expect(loadConfig({ EMAIL_VISIBILITY: 'owner' }).emailVisibility).toEqual({ v1: 'owner', v2: 'owner' })
  })

  it('reads OIDC_PROVIDERS, with presets for known issuers', () => {
    const config = loadConfig({
      OIDC_PROVIDERS: 'google, corp-sso',
      OIDC_GOOGLE_CLIENT_ID: 'g-id',
      OIDC_GOOGLE_CLIENT_SECRET: 'g-secret',
      OIDC_CORP_SSO_ISSUER: 'https://sso.corp.example/realms/main',
      OIDC_CORP_SSO_CLIENT_ID: 'c-id',
      OIDC_CORP_SSO_CLIENT_SECRET: 'c-secret',
      OIDC_CORP_SSO_SCOPES: 'openid email',
      OIDC_CORP_SSO_LABEL: 'Corp',
    })
    expect(config.oidcProviders).toEqual([
      { name: 'google', issuer: 'https://accounts.google.com', clientId: 'g-id', clientSecret: 'g-secret', scopes: 'openid email profile', label: 'Google' },
      { name: 'corp-sso', issuer: 'https://sso.corp.example/realms/main', clientId: 'c-id', clientSecret: 'c-secret', scopes: 'openid email', label: 'Corp' },
    ])
    expect(loadConfig({}).oidcProviders).toEqual([])
  })

  it('reads GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET, with GitHub Enterprise endpoints', () => {
    expect(loadConfig({ GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret' }).github).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      url: 'https://github.com',
      apiUrl: 'https://api.github.com',
    })
    expect(loadConfig({ GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret', GITHUB_URL: 'https://git.corp.example/', GITHUB_API_URL: 'https://git.corp.example/api/v3' }).github).toMatchObject({
      url: 'https://git.corp.example',
      apiUrl: 'https://git.corp.example/api/v3',
    })
    expect(loadConfig({}).github).toBeUndefined()
  })

  it('reads AUTH_REDIRECT_ORIGINS (PUBLIC_URL\'s origin by default), EMAIL_LOGIN and EMAIL_LOGIN_URL', () => {
    expect(loadConfig({ NODE_ENV: 'test', PUBLIC_URL: 'https://api.example.com/base/' }).authRedirectOrigins).toEqual({ exact: ['https://api.example.com'], anyPort: [] })
    expect(loadConfig({ AUTH_REDIRECT_ORIGINS: 'https://app.example.com, http://localhost:*' }).authRedirectOrigins).toEqual({
      exact: ['https://app.example.com'],
      anyPort: ['http://localhost'],
    })
    expect(loadConfig({ EMAIL_LOGIN: 'off' }).emailLogin.enabled).toBe(false)
    expect(loadConfig({ EMAIL_LOGIN_URL: 'https://app.example.com/magic?token={token}' }).mail.emailLoginUrl).toBe('https://app.example.com/magic?token={token}')
  })

  it('reads the second-factor and passkey settings, by default from PUBLIC_URL', () => {
    const defaults = loadConfig({ PUBLIC_URL: 'https://api.example.com:8443/base/' })
    expect(defaults.webauthn).toEqual({ rpId: 'api.example.com', rpName: 'api.example.com', origins: { exact: ['https://api.example.com:8443'], anyPort: [] } })
    expect(defaults.mfa).toMatchObject({ issuer: 'api.example.com:8443', requireForSuperusers: false })
    const set = loadConfig({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_RP_NAME: 'Example', WEBAUTHN_ORIGINS: 'https://app.example.com, https://example.com', MFA_ISSUER: 'Example', MFA_RATE_LIMIT: '3', REQUIRE_MFA_FOR_SUPERUSERS: 'true' })
    expect(set.webauthn).toEqual({ rpId: 'example.com', rpName: 'Example', origins: { exact: ['https://app.example.com', 'https://example.com'], anyPort: [] } })
    expect(loadConfig({ WEBAUTHN_ORIGINS: 'http://localhost:*' }).webauthn.origins).toEqual({ exact: [], anyPort: ['http://localhost'] })
    expect(() => loadConfig({ WEBAUTHN_ORIGINS: 'https://evil.example.net' })).toThrow(/not on WEBAUTHN_RP_ID localhost/)
    expect(set.mfa).toEqual({ rateLimit: 3, issuer: 'Example', requireForSuperusers: true })
  })

  it('hashes passwords in one fewer worker than the cores by default, and reads PASSWORD_HASH_*', () => {
    expect(loadConfig({}).passwordHashing).toEqual({ workers: Math.max(1, availableParallelism() - 1), queue: 100, nice: 0 })
    expect(loadConfig({ PASSWORD_HASH_WORKERS: '3', PASSWORD_HASH_QUEUE: '0', PASSWORD_HASH_NICE: '19' }).passwordHashing).toEqual({ workers: 3, queue: 0, nice: 19 })
    expect(() => loadConfig({ PASSWORD_HASH_NICE: '20' })).toThrow(ConfigError)
    expect(() => loadConfig({ PASSWORD_HASH_WORKERS: '0' })).toThrow(ConfigError)
  })

  it('reads every setting', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u:p@db:5432/app',
      REDIS_URL: 'redis://cache:6379',
      REDIS_KEY_PREFIX: 'shop-prod:',
      SECRET_KEY: 'k'.repeat(40),
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      USER_SIGNUP: 'authenticated',
      ADMIN_NAME: 'Boss',
      ADMIN_EMAIL: 'boss@example.com',
      ADMIN_USERNAME: 'boss',
      ADMIN_PASSWORD: 'boss password',
      UPLOAD_MAX_BYTES: '2048',
      ACCESS_TOKEN_MINUTES: '5',
      REFRESH_TOKEN_DAYS: '30',
      LOGIN_RATE_LIMIT: '3',
      DEPRECATED_VERSIONS: 'v1',
      SUNSET_DATES: 'v1=2027-06-30',
      TRUST_PROXY: 'true',
      SMTP_URL: 'smtp://mailer:secret@mail.example.com:587',
      MAIL_FROM: 'Service <service@example.com>',
      PUBLIC_URL: 'https://api.example.com/',
      RESET_PASSWORD_URL: 'https://app.example.com/reset?token={token}',
      EMAIL_VERIFICATION_HOURS: '48',
      PASSWORD_RESET_MINUTES: '30',
      REQUIRE_VERIFIED_EMAIL: 'true',
      SECURITY_EVENT_RETENTION_DAYS: '30',
      PASSWORD_RESET_RATE_LIMIT: '3',
    })
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/tmp/x',
      databaseUrl: 'postgres://u:p@db:5432/app',
      redisUrl: 'redis://cache:6379',
      redisKeyPrefix: 'shop-prod:',
      nodeEnv: 'production',
      logLevel: 'warn',
      userSignup: 'authenticated',
      admin: { name: 'Boss', email: 'boss@example.com', username: 'boss', password: 'boss password' },
      uploadMaxBytes: 2048,
      accessTokenMinutes: 5,
      refreshTokenDays: 30,
      loginRateLimit: 3,
      deprecatedVersions: ['v1'],
      sunsetDates: { v1: '2027-06-30' },
      avatarStorage: 'database',
      cookieSecure: true,
      trustProxy: true,
      mail: {
        transport: 'smtp',
        smtpUrl: 'smtp://mailer:secret@mail.example.com:587',
        from: 'Service <service@example.com>',
        publicUrl: 'https://api.example.com',
        verifyEmailUrl: undefined,
        resetPasswordUrl: 'https://app.example.com/reset?token={token}',
        verificationHours: 48,
        resetMinutes: 30,
      },
      requireVerifiedEmail: true,
      securityEventRetentionDays: 30,
      passwordResetRateLimit: 3,
    })
  })

  it.each([
    [{ PORT: 'eighty' }, /^PORT must be an integer/],
    [{ PORT: '70000' }, /^PORT must be between 0 and 65535/],
    [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL must start with postgres:/],
    [{ DATABASE_URL: 'not a url' }, /^DATABASE_URL must be a URL/],
    [{ REDIS_URL: 'http://x' }, /^REDIS_URL must start with redis:/],
    [{ REDIS_KEY_PREFIX: 'shop prod' }, /^REDIS_KEY_PREFIX must be up to 64 letters/],
    [{ REDIS_KEY_PREFIX: 'x'.repeat(65) }, /^REDIS_KEY_PREFIX must be up to 64 letters/],
    [{ SECRET_KEY: 'short' }, /^SECRET_KEY must be at least 32 characters/],
    [{ NODE_ENV: 'staging' }, /^NODE_ENV must be one of/],
    [{ NODE_ENV: 'production' }, /^SECRET_KEY is required when NODE_ENV=production/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of/],
    [{ USER_SIGNUP: 'closed' }, /^USER_SIGNUP must be one of open, authenticated/],
    [{ ADMIN_EMAIL: 'a@b.co' }, /^ADMIN_USERNAME is required/],
    [{ ADMIN_EMAIL: 'a@b.co', ADMIN_USERNAME: 'admin' }, /^ADMIN_PASSWORD is required/],
    [{ ADMIN_EMAIL: 'a@b.co', ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'short' }, /^ADMIN_PASSWORD must be 8-128/],
    [{ UPLOAD_MAX_BYTES: '10' }, /^UPLOAD_MAX_BYTES must be between/],
    [{ ACCESS_TOKEN_MINUTES: '0' }, /^ACCESS_TOKEN_MINUTES must be between/],
    [{ REFRESH_TOKEN_DAYS: '1.5' }, /^REFRESH_TOKEN_DAYS must be an integer/],
    [{ LOGIN_RATE_LIMIT: '-3' }, /^LOGIN_RATE_LIMIT must be between/],
    [{ DEPRECATED_VERSIONS: 'v0' }, /^DEPRECATED_VERSIONS must list versions/],
    [{ DEPRECATED_VERSIONS: 'v2' }, /^DEPRECATED_VERSIONS cannot include v2/],
    [{ SUNSET_DATES: 'v1' }, /^SUNSET_DATES must look like v1=2027-06-30/],
    [{ SUNSET_DATES: 'v1=2027-02-30' }, /^SUNSET_DATES has an invalid date for v1/],
    [{ SUNSET_DATES: 'v9=2027-01-01' }, /^SUNSET_DATES must look like/],
    [{ SUNSET_DATES: 'v1=2027-01-01' }, /^SUNSET_DATES names v1, which DEPRECATED_VERSIONS does not list/],
    [{ AVATAR_STORAGE: 's3' }, /^AVATAR_STORAGE must be one of/],
    [{ COOKIE_SECURE: 'sometimes' }, /^COOKIE_SECURE must be true or false/],
    [{ COOKIE_SAMESITE: 'none' }, /^COOKIE_SAMESITE=none needs COOKIE_SECURE=true/],
    [{ COOKIE_SAMESITE: 'sometimes' }, /^COOKIE_SAMESITE must be one of lax, strict, none/],
    [{ CORS_ORIGINS: '*, https://app.example.com' }, /^CORS_ORIGINS=\* allows every origin and cannot be combined/],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, /^CORS_ORIGINS must list origins like/],
    [{ CORS_ORIGINS: 'app.example.com' }, /^CORS_ORIGINS must list origins like/],
    [{ CORS_ORIGINS: 'ftp://files.example.com' }, /^CORS_ORIGINS must list origins like/],
    [{ CORS_ORIGINS: 'https://*.example.com' }, /^CORS_ORIGINS must list origins like/],
    [{ CORS_ORIGINS: 'http://localhost:5173:*' }, /^CORS_ORIGINS must list origins like/],
    [{ AUTH_REDIRECT_ORIGINS: '*' }, /^AUTH_REDIRECT_ORIGINS must list origins like/],
    [{ AUTH_REDIRECT_ORIGINS: 'https://app.example.com/path' }, /^AUTH_REDIRECT_ORIGINS must list origins like/],
    [{ EMAIL_LOGIN_URL: 'https://app.example.com/magic' }, /^EMAIL_LOGIN_URL must contain \{token\}/],
    [{ EMAIL_LOGIN: 'maybe' }, /^EMAIL_LOGIN must be one of/],
    [{ WEBAUTHN_RP_ID: 'https://example.com' }, /^WEBAUTHN_RP_ID must be a host name/],
    [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://evil.example' }, /^WEBAUTHN_ORIGINS: https:\/\/evil.example is not on WEBAUTHN_RP_ID example.com/],
    [{ WEBAUTHN_ORIGINS: 'https://app.example.com/path' }, /^WEBAUTHN_ORIGINS must list origins/],
    [{ MFA_RATE_LIMIT: '0' }, /^MFA_RATE_LIMIT must be between/],
    [{ OIDC_PROVIDERS: 'Corp' }, /^OIDC_PROVIDERS names must be lowercase/],
    [{ GITHUB_CLIENT_ID: 'id' }, /^GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET go together/],
    [{ GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 's', GITHUB_URL: 'http://git.corp.example' }, /^GITHUB_URL must use https/],
    [{ GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 's', OIDC_PROVIDERS: 'github', OIDC_GITHUB_ISSUER: 'https://x.example', OIDC_GITHUB_CLIENT_ID: 'a', OIDC_GITHUB_CLIENT_SECRET: 'b' }, /^OIDC_PROVIDERS cannot name "github"/],
    [{ OIDC_PROVIDERS: 'corp' }, /^OIDC_CORP_ISSUER is required/],
    [{ OIDC_PROVIDERS: 'corp', OIDC_CORP_ISSUER: 'http://sso.corp.example', OIDC_CORP_CLIENT_ID: 'a', OIDC_CORP_CLIENT_SECRET: 'b' }, /^OIDC_CORP_ISSUER must use https/],
    [{ OIDC_PROVIDERS: 'google' }, /^OIDC_GOOGLE_CLIENT_ID and OIDC_GOOGLE_CLIENT_SECRET are required/],
    [{ OIDC_PROVIDERS: 'google', OIDC_GOOGLE_CLIENT_ID: 'a', OIDC_GOOGLE_CLIENT_SECRET: 'b', OIDC_GOOGLE_SCOPES: 'email' }, /^OIDC_GOOGLE_SCOPES must include openid/],
    [{ SIGNUP_LOGIN: 'maybe' }, /^SIGNUP_LOGIN must be true or false/],
    [{ NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(32) }, /^SMTP_URL is required when NODE_ENV=production/],
    [{ MAIL_TRANSPORT: 'smtp' }, /^MAIL_TRANSPORT=smtp needs SMTP_URL/],
    [{ SMTP_URL: 'http://mail' }, /^SMTP_URL must start with smtp:/],
    [{ VERIFY_EMAIL_URL: 'https://app.example.com/verify' }, /^VERIFY_EMAIL_URL must contain \{token\}/],
    [{ MAIL_TEMPLATES_DIR: '/no/such/dir' }, /^MAIL_TEMPLATES_DIR does not exist/],
    [{ REQUIRE_VERIFIED_EMAIL: 'sure' }, /^REQUIRE_VERIFIED_EMAIL must be true or false/],
    [{ SECRET_KEY_PREVIOUS: 'short' }, /^SECRET_KEY_PREVIOUS must list keys of at least 32 characters/],
    [{ ANONYMOUS_RATE_LIMIT: '300' }, /^ANONYMOUS_RATE_LIMIT must look like 300\/60/],
    [{ DEFAULT_RATE_LIMIT: '0/60' }, /^DEFAULT_RATE_LIMIT must look like/],
    [{ SIGNUP_RATE_LIMIT: '5/0' }, /^SIGNUP_RATE_LIMIT must look like/],
    [{ RATE_LIMIT_FAIL: 'maybe' }, /^RATE_LIMIT_FAIL must be one of open, closed/],
    [{ REQUEST_LIMITS: 'no' }, /^REQUEST_LIMITS must be one of on, off/],
    [{ ADMIN_CONSOLE: 'yes' }, /^ADMIN_CONSOLE must be one of on, off/],
    [{ BACKUP_INTERVAL_HOURS: 'daily' }, /^BACKUP_INTERVAL_HOURS must be a number of hours from 0.0001 to 8760/],
    [{ BACKUP_INTERVAL_HOURS: '0' }, /^BACKUP_INTERVAL_HOURS must be a number of hours/],
    [{ BACKUP_INTERVAL_HOURS: '6', DATABASE_URL: 'postgres://db/app' }, /^BACKUP_INTERVAL_HOURS backs up the embedded SQLite database only; back up PostgreSQL with pg_dump/],
    [{ BACKUP_KEEP: '0' }, /^BACKUP_KEEP must be between 1 and 1000/],
    [{ DATABASE_DIRECT_URL: 'postgres://db/app' }, /^DATABASE_DIRECT_URL needs DATABASE_URL/],
    [{ DATABASE_POOL_MAX: '0' }, /^DATABASE_POOL_MAX must be between 1 and 1000/],
    [{ DATABASE_REPLICA_URLS: 'postgres://replica/app' }, /^DATABASE_REPLICA_URLS needs DATABASE_URL: replicas are hot standbys of a PostgreSQL primary \(SQLite has none\)/],
    [{ DATABASE_URL: 'postgres://db/app', DATABASE_REPLICA_URLS: 'postgres://replica/app, mysql://other/app' }, /^DATABASE_REPLICA_URLS\[1\] must start with postgres: or postgresql:/],
    [{ DATABASE_URL: 'postgres://db/app', DATABASE_REPLICA_MAX_LAG_MS: '0' }, /^DATABASE_REPLICA_MAX_LAG_MS must be between 1 and 3600000/],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: '-5' }, /^DATABASE_STATEMENT_TIMEOUT_MS must be between 0 and 86400000/],
    [{ TRUST_PROXY: 'sometimes' }, /^TRUST_PROXY must be true, false, a hop count or a comma list/],
    [{ TRUST_PROXY: '10.0.0.0/99' }, /^TRUST_PROXY must be/],
    [{ TRUST_PROXY: '101' }, /^TRUST_PROXY must be between 1 and 100/],
    [{ ADMIN_PROMOTE_EXISTING: 'maybe' }, /^ADMIN_PROMOTE_EXISTING must be true or false/],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(message)
  })

  it.each([
    ['false', false],
    ['0', false],
    ['true', true],
    ['1', 1],
    ['2', 2],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
    ['::1,fd00::/8', ['::1', 'fd00::/8']],
  ])('reads TRUST_PROXY=%s as a hop count or proxy list (true stays "every hop")', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected)
  })

  it('lets production run without SMTP only when MAIL_TRANSPORT=log says so, and writes .eml files elsewhere by default', () => {
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(32), MAIL_TRANSPORT: 'log' }).mail.transport).toBe('log')
    expect(loadConfig({}).mail).toMatchObject({ transport: 'file', publicUrl: 'http://localhost:8000' })
  })

  it('reads request limits as requests / seconds', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).rateLimits).toEqual({
      anonymous: { limit: 300, periodSeconds: 60 },
      fallback: { limit: 1000, periodSeconds: 60 },
      signup: { limit: 5, periodSeconds: 3600 },
      failMode: 'open',
      enabled: true,
      ipv6PrefixBits: 64,
    })
    expect(loadConfig({ ANONYMOUS_RATE_LIMIT: '50 / 10', RATE_LIMIT_FAIL: 'closed', REQUEST_LIMITS: 'off', RATE_LIMIT_IPV6_PREFIX: '56' }).rateLimits).toMatchObject({
      anonymous: { limit: 50, periodSeconds: 10 },
      failMode: 'closed',
      enabled: false,
      ipv6PrefixBits: 56,
    })
    expect(() => loadConfig({ RATE_LIMIT_IPV6_PREFIX: '16' })).toThrow(/RATE_LIMIT_IPV6_PREFIX/)
  })

  it('reads the files settings: local disk by default, S3 with its bucket, types, presets and quotas', () => {
    const defaults = loadConfig({ DATA_DIR: '/srv/data' }).files
    expect(defaults).toMatchObject({
      storage: { driver: 'local', directory: '/srv/data' },
      maxBytes: 25 * 1024 * 1024,
      uploadMaxBytes: 1024 * 1024 * 1024,
      types: ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'text/plain'],
      maxPixels: 50_000_000,
      uploadExpirySeconds: 3600,
      urlSeconds: 300,
      defaultQuota: { bytes: 1024 ** 3, files: 10_000 },
    })
    expect([...defaults.presets]).toEqual([
      ['thumb', { width: 256, height: 256, fit: 'cover' }],
      ['medium', { width: 1280, height: undefined, fit: 'inside' }],
    ])
    const s3 = loadConfig({ STORAGE: 's3', S3_BUCKET: 'media', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret', S3_FORCE_PATH_STYLE: 'true', FILE_IMAGE_PRESETS: 'card:600x315' })
    expect(s3.files.storage).toEqual({ driver: 's3', bucket: 'media', endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', accessKeyId: 'id', secretAccessKey: 'secret', forcePathStyle: true })
    expect([...s3.files.presets.keys()]).toEqual(['card'])
    // Avatars follow the files onto S3, even with PostgreSQL.
    expect(loadConfig({ STORAGE: 's3', S3_BUCKET: 'media', DATABASE_URL: 'postgres://db/app' }).avatarStorage).toBe('storage')
    expect(loadConfig({ DATABASE_URL: 'postgres://db/app' }).avatarStorage).toBe('database')
    expect(() => loadConfig({ STORAGE: 's3' })).toThrow(/^S3_BUCKET is required/)
    expect(() => loadConfig({ STORAGE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'id' })).toThrow(/go together/)
    // Markup a browser would run is never allowed, whatever the operator lists.
    expect(() => loadConfig({ FILE_TYPES: 'image/png,image/svg+xml' })).toThrow(/^FILE_TYPES may list only .*not image\/svg\+xml$/)
    expect(() => loadConfig({ FILE_TYPES: 'text/html' })).toThrow(/FILE_TYPES/)
    expect(() => loadConfig({ FILE_IMAGE_PRESETS: 'thumb:wide' })).toThrow(/FILE_IMAGE_PRESETS/)
  })

  it('reads the privacy settings: the deletion grace, the data export lease, the alerts and their GeoIP database', () => {
    expect(loadConfig({})).toMatchObject({
      accountDeletion: { graceDays: 14, content: 'delete' },
      dataExport: { leaseSeconds: 60, downloadPageUrl: undefined },
      deviceAlerts: { enabled: true, geoipDatabase: undefined },
    })
    expect(loadConfig({ DATA_EXPORT_DOWNLOAD_URL: 'https://app.example.com/export?token={token}' }).dataExport.downloadPageUrl).toBe('https://app.example.com/export?token={token}')
    expect(() => loadConfig({ DATA_EXPORT_DOWNLOAD_URL: 'https://app.example.com/export' })).toThrow(/^DATA_EXPORT_DOWNLOAD_URL must contain \{token\}/)
    expect(loadConfig({ DATA_EXPORT_LEASE_SECONDS: '5', GEOIP_DATABASE: 'package.json' })).toMatchObject({ dataExport: { leaseSeconds: 5 }, deviceAlerts: { geoipDatabase: path.resolve('package.json') } })
    expect(() => loadConfig({ DATA_EXPORT_LEASE_SECONDS: '1' })).toThrow(ConfigError)
    expect(() => loadConfig({ GEOIP_DATABASE: '/nowhere/city.mmdb' })).toThrow(/^GEOIP_DATABASE does not exist/)
  })

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '  ' })).toMatchObject({ port: 8000, databaseUrl: undefined })
  })
})
