// Where an address is, roughly, for the new-device alert: the city and country of the operator's
// MaxMind database (GEOIP_DATABASE: GeoLite2 City or GeoIP2 City, read with the `maxmind`
// package), named in the recipient's language when the database has it, else in English. Without
// the database the alert names the network alone. The file is checked at start (its metadata
// marker) and read, with the reader, the first time an alert asks: a start neither loads the
// package nor holds the tens of megabytes of a city database.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { readFile } from 'node:fs/promises'

import type { CityResponse, Reader } from 'maxmind'

import { languageOf } from '../../shared/locale.js'

/** The names a record gives a place, by language (de, en, es, fr, ja, pt-BR, ru, zh-CN). */
type Names = { readonly [language: string]: string | undefined }

/** Every MaxMind database ends with its metadata, after this marker, in its last 128 KiB (the format's specification). */
const METADATA_MARKER = Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1')
const METADATA_SEARCH_BYTES = 128 * 1024

function hasMaxMindMetadata(file: string): boolean {
  const descriptor = openSync(file, 'r')
  try {
    const { size } = fstatSync(descriptor)
    const length = Math.min(size, METADATA_SEARCH_BYTES)
    const tail = Buffer.alloc(length)
    readSync(descriptor, tail, 0, length, size - length)
    return tail.includes(METADATA_MARKER)
  } finally {
    closeSync(descriptor)
  }
}

export class Places {
  private reader: Promise<Reader<CityResponse>> | undefined

  private constructor(private readonly file: string) {}

  /** Checks the file at start (a file that is not a MaxMind database stops the start); reads it at the first alert. */
  static open(file: string): Places {
    let marked: boolean
    try {
      marked = hasMaxMindMetadata(file)
    } catch (error) {
      throw new Error(`GEOIP_DATABASE "${file}" is not a MaxMind database: ${(error as Error).message}`)
    }
    if (!marked) throw new Error(`GEOIP_DATABASE "${file}" is not a MaxMind database: it holds no MaxMind metadata`)
    return new Places(file)
  }

  private opened(): Promise<Reader<CityResponse>> {
    this.reader ??= Promise.all([import('maxmind'), readFile(this.file)]).then(([{ Reader }, data]) => new Reader<CityResponse>(data))
    return this.reader
  }

  /** "Berlin, Germany", "Germany", or undefined when the database does not know the address. */
  async placeOf(ip: string | null, locale: string | null): Promise<string | undefined> {
    if (ip === null) return undefined
    let found: CityResponse | null
    try {
      found = (await this.opened()).get(ip)
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
