// sharp (libvips) is loaded the first time an image needs it, not at start: a service that never
// receives an image never loads it (docs/performance.md, "What a start loads").
import type { default as Sharp } from 'sharp'

let loading: Promise<typeof Sharp> | undefined

export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import('sharp').then((module) => {
    const sharp = module.default
    // Nothing is decoded twice (an upload's check once, a variant once, then stored), so libvips'
    // cache of decoded images and open files would only hold memory: off.
    sharp.cache(false)
    return sharp
  })
  return loading
}

const RENDERS_AT_ONCE = 2
let rendering = 0
const waiting: (() => void)[] = []

/**
 * Runs image work (a decode, a variant) with at most RENDERS_AT_ONCE at a time in the process:
 * a burst of first requests for variants waits its turn instead of decoding every photo at once.
 */
export async function withImageSlot<T>(work: () => Promise<T>): Promise<T> {
  if (rendering >= RENDERS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve))
  rendering += 1
  try {
    return await work()
  } finally {
    rendering -= 1
    waiting.shift()?.()
  }
}
