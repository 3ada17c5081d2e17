/** Runs `run` at most once per `windowMs`, `windowMs` after the first call of a burst: a burst of commits costs one wake-up. */
export function coalesced(run: () => void, windowMs: number): () => void {
  let pending: NodeJS.Timeout | undefined
  return () => {
    pending ??= setTimeout(() => {
      pending = undefined
      run()
    }, windowMs)
  }
}
