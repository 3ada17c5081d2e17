// The feature slices (docs/architecture.md): every folder under src/features is in the slice list
// under its own name, with its public face and its registration, and every migration belongs to
// the slices whose tables it creates or changes.
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'

import { expect, it } from 'vitest'

import { migrations } from '../src/db/migrations/index.js'
import { FEATURES } from '../src/features/index.js'

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
