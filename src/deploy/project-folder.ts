// A folder about to be deployed that is a Node project rather than a site:
// a package.json and node_modules/ at its root. Publishing it would send the
// sources and thousands of dependency files (or be refused as TOO_MANY_FILES
// after hashing them all), never the built pages. The CLI and the dashboard
// stop before reading a file and say where the site is.

/** Where build tools write a site: Vite and most others, Create React App, Next's export, Eleventy and Jekyll. */
export const BUILD_OUTPUT_FOLDERS = ['dist', 'build', 'out', '_site'] as const;

export interface ProjectFolder {
  /** What the folder is, to follow "this folder is" or "this deploy is". */
  reason: string;
  /** The build output folder holding an index.html, when there is one. */
  output: (typeof BUILD_OUTPUT_FOLDERS)[number] | null;
}

/**
 * `holds(path)`: whether the folder holds that file or folder (a path
 * relative to it). Null when the folder is not a Node project with its
 * dependencies installed.
 */
export function nodeProjectFolder(holds: (path: string) => boolean): ProjectFolder | null {
  if (!holds('package.json') || !holds('node_modules')) return null;
  return {
    reason: 'a Node project (package.json and node_modules/), not a built site',
    output: BUILD_OUTPUT_FOLDERS.find((folder) => holds(`${folder}/index.html`)) ?? null,
  };
}
