// What ways into an account a user has; asked before any of them is removed.
import type { Feature } from '../feature.js'

export const signInMethodsFeature: Feature = { name: 'sign-in-methods' }
