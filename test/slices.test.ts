// The feature slices (docs/architecture.md): every folder under src/features is in the slice list
// under its own name, with its public face and its registration, and every migration belongs to
// the slices whose tables it creates or changes.
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'

import { expect, it } from 'vitest'

import { migrations } from '../src/db/migrations/index.js'
import { ERROR_CODES, FEATURES } from '../src/features/index.js'
import { CORE_ERROR_CODES } from '../src/shared/errors.js'

const featuresDir = path.resolve(import.meta.dirname, '../src/features')
const folders = readdirSync(featuresDir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)

it('lists every slice folder once, under its own name, with its index.ts and feature.ts', () => {
  expect(FEATURES.map((feature) => feature.name).sort()).toEqual([...folders].sort())
  for (const folder of folders) {
    expect(existsSync(path.join(featuresDir, folder, 'index.ts')), `${folder}/index.ts`).toBe(true)
    expect(existsSync(path.join(featuresDir, folder, 'feature.ts')), `${folder}/feature.ts`).toBe(true)
  }
})

it('gives every migration to a slice, and names only migrations that exist', () => {
  const owned = new Set(FEATURES.flatMap((feature) => feature.migrations ?? []))
  expect(Object.keys(migrations).filter((name) => !owned.has(name))).toEqual([])
  expect([...owned].filter((name) => !(name in migrations))).toEqual([])
})

it("publishes each error code once: no slice redefines a general code or another slice's", () => {
  const defined = [CORE_ERROR_CODES, ...FEATURES.map((feature) => feature.errors ?? {})].flatMap((codes) => Object.keys(codes))
  expect(defined.filter((code, index) => defined.indexOf(code) !== index)).toEqual([])
  expect(Object.keys(ERROR_CODES)).toHaveLength(defined.length)
})
