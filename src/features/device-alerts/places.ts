// Where an address is, roughly, for the new-device alert: the city and country of the operator's
// MaxMind database (GEOIP_DATABASE: GeoLite2 City or GeoIP2 City, read with the `maxmind`
// package), named in the recipient's language when the database has it, else in English. Without
// the database the alert names the network alone.
import { readFileSync } from 'node:fs'

import type { CityResponse } from 'maxmind'
import { Reader } from 'maxmind'

import { languageOf } from '../../shared/locale.js'

/** The names a record gives a place, by language (de, en, es, fr, ja, pt-BR, ru, zh-CN). */
type Names = { readonly [language: string]: string | undefined }

export class Places {
  private constructor(private readonly reader: Reader<CityResponse>) {}

  /** Reads the database whole, once, at start: a file that is not one stops the start. */
  static open(file: string): Places {
    try {
      return new Places(new Reader<CityResponse>(readFileSync(file)))
    } catch (error) {
      throw new Error(`GEOIP_DATABASE "${file}" is not a MaxMind database: ${(error as Error).message}`)
    }
  }

  /** "Berlin, Germany", "Germany", or undefined when the database does not know the address. */
  placeOf(ip: string | null, locale: string | null): string | undefined {
    if (ip === null) return undefined
    let found: CityResponse | null
    try {
      found = this.reader.get(ip)
    } catch {
      return undefined
    }
    const language = locale === null ? 'en' : languageOf(locale)
    const name = (names: object | undefined): string | undefined => {
      const byLanguage = names as Names | undefined
      return byLanguage === undefined ? undefined : (byLanguage[locale ?? ''] ?? byLanguage[language] ?? byLanguage.en)
    }
    const parts = [name(found?.city?.names), name(found?.country?.names)].filter((part): part is string => part !== undefined)
    return parts.length === 0 ? undefined : parts.join(', ')
  }
}
