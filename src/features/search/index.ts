// The search slice's public face: it offers nothing to other slices; its route is its whole work.
export { searchFeature } from './feature.js'
