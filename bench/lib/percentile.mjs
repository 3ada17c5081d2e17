// The benchmark's two summaries of a set of figures, defined once for all its processes: the
// nearest-rank percentile (load worker, stream clients, event bench) and the median (of rounds,
// of starts).

/** The nearest-rank percentile of ascending values, or undefined when there are none. */
export function nearestRank(sorted, fraction) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] : undefined
}

/** The median of the values (the mean of the middle two for an even count); NaN when there are none. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
