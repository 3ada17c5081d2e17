// sharp (libvips) is loaded the first time an image needs it, not at start: a service that never
// receives an image never loads it (docs/performance.md, "What a start loads").
import type { default as Sharp } from 'sharp'

let loading: Promise<typeof Sharp> | undefined

export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import('sharp').then((module) => module.default)
  return loading
}
