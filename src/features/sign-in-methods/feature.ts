// What ways into an account a user has; asked before any of them is removed.
import type { Feature } from '../feature.js'
import { signInMethodsErrorCodes } from './errors.js'
import { signInMethodsFunctions, signInMethodsReadTargets } from './sign-in-methods.repository.js'
import { SignInMethods } from './sign-in-methods.service.js'

interface SignInMethodsServices {
  /** Asked by every removal of a way to sign in, in its unit of work. */
  signInMethods: SignInMethods
}

export const signInMethodsFeature: Feature<SignInMethodsServices> = { name: 'sign-in-methods',
  errors: signInMethodsErrorCodes,
  create: ({ bind }) => ({ signInMethods: new SignInMethods(bind(signInMethodsFunctions, signInMethodsReadTargets)) }),

}
