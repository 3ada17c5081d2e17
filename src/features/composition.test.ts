// The slices' dependency graph, from their manifests: built in an order with no circle among what
// they need, each reaching only the slices it names, and docs/architecture.md shows the graph as
// the manifests say it.
import { readFileSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { buildOrder, composeFeatures, sliceGraph } from './composition.js'
import type { BuildContext, Feature } from './feature.js'
import { FEATURES } from './index.js'

const context = {} as Omit<BuildContext, 'peers' | 'signInMethods'>

describe('the slice graph', () => {
  it('builds every slice after what it needs, with no circle', () => {
    const order = buildOrder(FEATURES).map((feature) => feature.name)
    expect([...order].sort()).toEqual(FEATURES.map((feature) => feature.name).sort())
    for (const feature of FEATURES) for (const needed of feature.needs ?? []) expect(order.indexOf(needed), `${feature.name} needs ${needed}`).toBeLessThan(order.indexOf(feature.name))
  })

  it('is shown in docs/architecture.md as the manifests say it', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/architecture.md'), 'utf8')
    const shown = /<!-- slice-graph -->\n```\n([\s\S]*?)```\n<!-- \/slice-graph -->/.exec(doc)?.[1]
    expect(shown).toBe(sliceGraph(FEATURES))
  })

  it('refuses a circle among what slices need, naming it', () => {
    const circle: Feature[] = [
      { name: 'a', needs: ['b'] },
      { name: 'b', needs: ['c'] },
      { name: 'c', needs: ['a'] },
    ]
    expect(() => buildOrder(circle)).toThrow('the slices need each other in a circle: a → b → c → a')
    expect(() => buildOrder([{ name: 'a', calls: ['nowhere'] }])).toThrow('the slice a calls nowhere, which is not in the slice list')
  })

  it('lets slices call each other in a circle once every service exists', () => {
    const ping: Feature<{ ping: () => string }> = { name: 'ping', calls: ['pong'], create: ({ peers }) => ({ ping: () => `ping ${(peers as unknown as { pong(): string }).pong()}` }) }
    const pong: Feature<{ pong: () => string }> = { name: 'pong', needs: ['ping'], create: () => ({ pong: () => 'pong' }) }
    const services = composeFeatures([ping, pong], context, {}) as unknown as { ping(): string }
    expect(services.ping()).toBe('ping pong')
  })

  it('refuses a reach the manifest does not name, and one before the peer is built', () => {
    const a: Feature<{ a: number }> = { name: 'a', create: () => ({ a: 1 }) }
    const sneaky: Feature<{ b: number }> = { name: 'b', create: ({ peers }) => ({ b: (peers as unknown as { a: number }).a }) }
    expect(() => composeFeatures([a, sneaky], context, {})).toThrow('the slice b reached a of a without naming a under needs or calls')
    const early: Feature<{ c: number }> = { name: 'c', calls: ['a'], create: ({ peers }) => ({ c: (peers as unknown as { a: number }).a }) }
    expect(() => composeFeatures([early, a], context, {})).toThrow('the slice c reached a, which no slice built before it gives')
    expect(() => composeFeatures([a, { name: 'twin', create: () => ({ a: 2 }) }], context, {})).toThrow('the slices a and twin both give a')
  })
})
