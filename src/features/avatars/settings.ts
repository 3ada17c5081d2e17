// The avatars slice's settings (docs/configuration.md, Files and storage).
import type { Config } from '../../config.js'
import type { Env } from '../../shared/settings.js'
import { oneOf } from '../../shared/settings.js'

export type AvatarStorageKind = 'storage' | 'disk' | 'database'

/**
 * AVATAR_STORAGE: `storage` is the file store (STORAGE: local disk or S3), `disk` its older name;
 * `database` keeps them in the database, the default on PostgreSQL while files are on local
 * disk. Read after the files' settings.
 */
export function avatarStorageSetting(env: Env, config: Pick<Config, 'databaseUrl' | 'files'>): AvatarStorageKind {
  return oneOf(env, 'AVATAR_STORAGE', ['storage', 'disk', 'database'] as const, config.databaseUrl && config.files.storage.driver === 'local' ? 'database' : 'storage')
}
