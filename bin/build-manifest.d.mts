/** Types of build-manifest.mjs, for the TypeScript that imports it (tests, scripts). */

/** A source's size and modification time when the bundle was built. */
export interface SourceStamp {
  readonly mtimeMs: number;
  readonly size: number;
}

/** Where the bundle goes, relative to the repository root. */
export const BUILD_DIR: string;
/** The bundle's entry file, inside `BUILD_DIR`. */
export const BUILD_ENTRY: string;
/** The manifest, inside `BUILD_DIR`. */
export const MANIFEST_FILE: string;

/** The size and modification time of each file, as the manifest records them. */
export function stampSources(root: string, files: readonly string[]): Record<string, SourceStamp>;

/**
 * The bundle's entry when the build exists and matches the sources (or, in an installed
 * package, when it exists: the sources are not shipped), else why not.
 */
export function freshBuild(root: string): { entry: string } | { stale: string };
