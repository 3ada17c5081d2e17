/** A filter given as an empty string (`?search=`) means no filter at all. */
export function filled<T>(value: T | '' | undefined): T | undefined {
  return value === undefined || value === '' ? undefined : value
}
