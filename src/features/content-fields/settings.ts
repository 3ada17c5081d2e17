// The content-fields slice's setting: CONTENT_SCHEMA, a JSON file (or the JSON itself) declaring
// the custom fields of posts, users and organizations (docs/configuration.md, Content).
import { readFileSync } from 'node:fs'

import type { Env } from '../../shared/settings.js'
import { ConfigError, read } from '../../shared/settings.js'
import type { ContentSchema } from './content-schema.js'
import { ContentSchemaError, EMPTY_CONTENT_SCHEMA, parseContentSchema } from './content-schema.js'

export interface ContentFieldsSettings {
  /** CONTENT_SCHEMA, checked; no custom fields when unset. */
  contentSchema: ContentSchema
}

function documentOf(setting: string): unknown {
  // Inline JSON suits a container's environment; a path suits a file kept in the repository.
  const inline = setting.startsWith('{')
  let textOf: string
  try {
    textOf = inline ? setting : readFileSync(setting, 'utf8')
  } catch {
    throw new ConfigError(`CONTENT_SCHEMA: cannot read the file "${setting}"`)
  }
  try {
    return JSON.parse(textOf)
  } catch (error) {
    throw new ConfigError(`CONTENT_SCHEMA: ${inline ? 'the value' : `"${setting}"`} is not JSON (${(error as Error).message})`)
  }
}

export function contentFieldsSettings(env: Env): ContentFieldsSettings {
  const setting = read(env, 'CONTENT_SCHEMA')
  if (setting === undefined) return { contentSchema: EMPTY_CONTENT_SCHEMA }
  try {
    return { contentSchema: parseContentSchema(documentOf(setting)) }
  } catch (error) {
    if (error instanceof ContentSchemaError) throw new ConfigError(`CONTENT_SCHEMA: ${error.message}`)
    throw error
  }
}
