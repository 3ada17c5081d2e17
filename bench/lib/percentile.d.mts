export function nearestRank(sorted: readonly number[], fraction: number): number | undefined
export function median(values: readonly number[]): number
