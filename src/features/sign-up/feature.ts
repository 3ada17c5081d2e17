// Sign-up from any origin (v2's POST /users/, answering with a session); v1's is its users route.
import { type Feature, routes } from '../feature.js'
import signupRoutes from './sign-up.v2.routes.js'

export const signUpFeature: Feature = { name: 'sign-up', routes: { v2: [routes(signupRoutes)] } }
