/** A package a process loaded: from node_modules, or bundled in the build's chunks it loaded (with the bytes it holds there). */
export interface LoadedPackage {
  name: string
  bundledBytes: number
  fromNodeModules: boolean
}
export function loadedPackages(recorded: string, buildDir: string): LoadedPackage[]
