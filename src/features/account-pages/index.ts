// The account pages' public face: nothing of theirs is used elsewhere; they serve /account/ (feature.ts).
export {}
