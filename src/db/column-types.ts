// Column types every table shares. SQLite and PostgreSQL return some values differently, so the
// select types are unions and the repositories normalise them:
// - flags are 0/1 in SQLite and booleans in PostgreSQL; both accept 0/1 on write;
// - timestamps are ISO-8601 text from both (PostgreSQL's timestamptz is parsed to text by
//   pg-timestamps.ts); the select type still admits Date, so a mapper handles either; both
//   accept ISO text on write;
// - bigint counts come back from PostgreSQL as strings.
import type { ColumnType } from 'kysely'

export type Flag = ColumnType<boolean | number, 0 | 1 | undefined, 0 | 1>
export type Timestamp = ColumnType<Date | string, string, string>
export type NullableTimestamp = ColumnType<Date | string | null, string | null | undefined, string | null>
