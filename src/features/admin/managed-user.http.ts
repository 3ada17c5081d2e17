// The superusers' read of a user for every route that answers with one (the directory, a user,
// a ban and its lift): its shape and its mapping, both with the deployment's custom fields.
import type { ContentFields } from '../content-fields/index.js'
import type { ManagedUser } from '../users/index.js'
import { toManagedUserRead } from './admin.v2.mappers.js'
import { managedUserRead } from './admin.v2.schemas.js'

/** The shape (`read`) and the mapping (`toRead`) of a managed user, every custom field included. */
export function managedUserReads(contentFields: ContentFields) {
  const fields = contentFields.of('users')
  return {
    read: managedUserRead(contentFields.shapes('users')),
    toRead: (user: ManagedUser) => toManagedUserRead(user, fields.view(user.storedFields, 'server')),
  }
}
