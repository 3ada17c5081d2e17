export function nearestRank(sorted: readonly number[], fraction: number): number | undefined
