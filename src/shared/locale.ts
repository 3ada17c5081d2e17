// Language tags (BCP 47): a user's locale, validated and written in its canonical form, taken
// from what they said (a sign-up body, their profile) or from their browser's Accept-Language.

import { Type } from 'typebox'

/** The longest tag kept (BCP 47 allows more; no real language preference needs it). */
export const LOCALE_MAX_LENGTH = 35

/** A language tag as the API takes it (`en`, `de-AT`, `pt-BR`): its shape checked by the schema, its subtags by canonicalLocale. */
export const localeTag = (description: string) => Type.String({ minLength: 2, maxLength: LOCALE_MAX_LENGTH, pattern: '^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$', description })

/** `tag` in its canonical form (`en-us` → `en-US`), or undefined when it is not a well-formed language tag. */
export function canonicalLocale(tag: string): string | undefined {
  if (tag.length === 0 || tag.length > LOCALE_MAX_LENGTH) return undefined
  try {
    const [canonical] = Intl.getCanonicalLocales(tag)
    return canonical
  } catch {
    return undefined
  }
}

/** The language of a tag: `de` for `de-AT`. */
export function languageOf(locale: string): string {
  return locale.split('-')[0]!.toLowerCase()
}

/** The tag an Accept-Language header prefers most (its highest weight, first among equals), canonical; undefined when none is usable. */
export function preferredLocale(acceptLanguage: string | undefined): string | undefined {
  if (acceptLanguage === undefined) return undefined
  let best: { locale: string; weight: number } | undefined
  for (const entry of acceptLanguage.slice(0, 500).split(',')) {
    const [tag = '', ...parameters] = entry.trim().split(';')
    const quality = parameters.map((parameter) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(parameter)?.[1]).find((value) => value !== undefined)
    const weight = quality === undefined ? 1 : Number(quality)
    const locale = tag.trim() === '*' ? undefined : canonicalLocale(tag.trim())
    if (locale !== undefined && weight > 0 && (best === undefined || weight > best.weight)) best = { locale, weight }
  }
  return best?.locale
}
