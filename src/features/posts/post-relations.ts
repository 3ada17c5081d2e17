// What a post names that a reader may ask for inline (`expand`), and how a page's relations are
// read: each under its own slice's read rule, in one query per relation for the whole page.
import type { OrgRole, OrgView } from '../orgs/index.js'
import type { User } from '../users/index.js'

export const POST_RELATIONS = ['author', 'org', 'attachments'] as const
export type PostRelation = (typeof POST_RELATIONS)[number]

/** The relations an `expand` value asks for (the schema has checked its names). */
export const relationsOf = (expand: string | undefined): ReadonlySet<PostRelation> => new Set(expand ? (expand.split(',') as PostRelation[]) : [])

/** Reads the records posts name, each under its own slice's rule. */
export interface PostRelated {
  /** The live users of `ids`. */
  authors(ids: readonly number[]): Promise<User[]>
  /** The organizations of `ids` the caller may read, as they see them. */
  orgs(ids: readonly number[], caller: { isSuperuser: boolean; roles: ReadonlyMap<number, OrgRole> }): Promise<OrgView[]>
}

/** A page's related records by id: an id missing from a map is a record the caller may not read, or one gone. */
export interface PostRelations {
  authors: ReadonlyMap<number, User>
  orgs: ReadonlyMap<number, OrgView>
}
