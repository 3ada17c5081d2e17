// The feeds slice's public face: it offers nothing to other slices.
export { feedsFeature } from './feature.js'
