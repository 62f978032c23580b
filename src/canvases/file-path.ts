const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * A canvas file's path in one Unicode form, the composed one (NFC). macOS
 * hands out file names decomposed ("cafe" + U+0301), while the links people
 * type in a page are composed ("café"): a folder deployed from a Mac answered
 * 404 to its own links. Deploys store this form and requests are looked up
 * in it, so either spelling finds the file. ASCII (most paths) is as it is.
 */
export function composedPath(path: string): string {
  return NON_ASCII.test(path) ? path.normalize('NFC') : path;
}
