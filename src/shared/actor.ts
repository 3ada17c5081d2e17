/** Whoever is acting: the authenticated caller, as services see them. */
export interface Actor {
  id: number
  isSuperuser: boolean
}
