// The nearest-rank percentile of ascending values, or undefined when there are none: the one
// definition the benchmark's processes (load worker, stream clients, event bench) report by.
export function nearestRank(sorted, fraction) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] : undefined
}
