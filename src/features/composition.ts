// Builds the slices' services from their manifests: each slice after the slices it `needs`
// (a circle among them is refused at start), each given `peers` that reach only the slices its
// manifest names, so the manifest is the whole truth about what a slice depends on.
import type { SignInMethod } from './auth/index.js'
import type { BuildContext, Feature, Services } from './feature.js'

/** The order the slices are built in: each after what it needs, otherwise in the list's order. */
export function buildOrder(features: readonly Feature[]): Feature[] {
  const byName = new Map(features.map((feature) => [feature.name, feature]))
  const ordered: Feature[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (feature: Feature, path: readonly string[]) => {
    if (state.get(feature.name) === 'done') return
    if (state.get(feature.name) === 'visiting') throw new Error(`the slices need each other in a circle: ${[...path, feature.name].join(' → ')}`)
    state.set(feature.name, 'visiting')
    for (const name of feature.needs ?? []) {
      const needed = byName.get(name)
      if (!needed) throw new Error(`the slice ${feature.name} needs ${name}, which is not in the slice list`)
      visit(needed, [...path, feature.name])
    }
    state.set(feature.name, 'done')
    ordered.push(feature)
  }
  for (const feature of features) visit(feature, [])
  for (const feature of features) for (const name of feature.calls ?? []) if (!byName.has(name)) throw new Error(`the slice ${feature.name} calls ${name}, which is not in the slice list`)
  return ordered
}

/** Builds every slice's services; `core` are the composition's own (jobs, signals, readiness). */
export function composeFeatures(features: readonly Feature[], context: Omit<BuildContext, 'peers' | 'signInMethods'>, core: object): Services {
  const services: Record<string, unknown> = { ...core }
  let methods: readonly SignInMethod[] | undefined
  const signInMethods = () => (methods ??= features.flatMap((feature) => feature.signInMethods?.(services as unknown as Services) ?? []))
  // Which slice gave each service, so a slice reaches only the slices its manifest names.
  const owner = new Map<string, string>(Object.keys(core).map((key) => [key, 'core']))
  for (const feature of buildOrder(features)) {
    const allowed = new Set(['core', feature.name, ...(feature.needs ?? []), ...(feature.calls ?? [])])
    const peers = new Proxy(services, {
      get(target, key) {
        if (typeof key !== 'string') return undefined
        const from = owner.get(key)
        if (from === undefined) throw new Error(`the slice ${feature.name} reached ${key}, which no slice built before it gives: name its slice under needs, or reach it only inside a function called later (calls)`)
        if (!allowed.has(from)) throw new Error(`the slice ${feature.name} reached ${key} of ${from} without naming ${from} under needs or calls`)
        return target[key]
      },
    }) as unknown as Services
    const provided = feature.create?.({ ...context, peers, signInMethods }) ?? {}
    for (const [key, value] of Object.entries(provided)) {
      if (owner.has(key)) throw new Error(`the slices ${owner.get(key)} and ${feature.name} both give ${key}`)
      owner.set(key, feature.name)
      services[key] = value
    }
  }
  return services as unknown as Services
}

/** The graph as text, a slice a line in build order: what it needs (built first), then what it calls later. */
export function sliceGraph(features: readonly Feature[]): string {
  const width = Math.max(...features.map((feature) => feature.name.length))
  return buildOrder(features)
    .map((feature) => {
      const needs = feature.needs?.length ? feature.needs.join(', ') : '-'
      const calls = feature.calls?.length ? `   (later: ${feature.calls.join(', ')})` : ''
      return `${feature.name.padEnd(width)}  ← ${needs}${calls}\n`
    })
    .join('')
}
