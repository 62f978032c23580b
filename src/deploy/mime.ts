// Content types by extension, decided once at deploy time and stored on the
// version's files (the serving path sends what is stored). An extension that
// is unknown, missing, or a server-side script type is served as text/plain,
// which the deploy reports as a warning.

const TEXT = 'text/plain; charset=utf-8';

const TYPES: Record<string, string> = {
  // documents and code
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  xhtml: 'application/xhtml+xml; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  cjs: 'text/javascript; charset=utf-8',
  json: 'application/json; charset=utf-8',
  jsonld: 'application/ld+json; charset=utf-8',
  map: 'application/json; charset=utf-8',
  webmanifest: 'application/manifest+json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
  txt: TEXT,
  text: TEXT,
  md: 'text/markdown; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  yaml: 'application/yaml; charset=utf-8',
  yml: 'application/yaml; charset=utf-8',
  toml: 'application/toml; charset=utf-8',
  ics: 'text/calendar; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
  wasm: 'application/wasm',
  pdf: 'application/pdf',
  // images
  svg: 'image/svg+xml; charset=utf-8',
  png: 'image/png',
  apng: 'image/apng',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jfif: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  cur: 'image/x-icon',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  heic: 'image/heic',
  heif: 'image/heif',
  // fonts
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  eot: 'application/vnd.ms-fontobject',
  // audio and video
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  oga: 'audio/ogg',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  weba: 'audio/webm',
  mid: 'audio/midi',
  midi: 'audio/midi',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  webm: 'video/webm',
  ogv: 'video/ogg',
  mov: 'video/quicktime',
  // 3D and data
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json; charset=utf-8',
  obj: 'model/obj',
  stl: 'model/stl',
  usdz: 'model/vnd.usdz+zip',
  bin: 'application/octet-stream',
  // archives and downloads
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed',
  epub: 'application/epub+zip',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** Server-side script types: never executed here, and never served under their own type. */
const SCRIPT_TYPES = new Set(['php', 'php3', 'php4', 'php5', 'phtml', 'asp', 'aspx', 'jsp', 'cgi', 'pl', 'py', 'rb', 'sh']);

/** The lowercase extension of the last path segment, or '' (a leading dot alone is not an extension). */
function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** The Content-Type a deployed file is served with. */
export function mimeFor(path: string): string {
  const ext = extensionOf(path);
  if (SCRIPT_TYPES.has(ext)) return TEXT;
  return Object.hasOwn(TYPES, ext) ? TYPES[ext]! : TEXT;
}

/** True when the file is downgraded to text/plain (unknown or missing extension, or a server-side script). */
export function isServedAsText(path: string): boolean {
  const ext = extensionOf(path);
  return SCRIPT_TYPES.has(ext) || !Object.hasOwn(TYPES, ext);
}

/** Text-like types worth scanning for a pasted canvas key. */
export function isTextType(mime: string): boolean {
  const type = mime.split(';')[0]!.trim().toLowerCase();
  return type.startsWith('text/') || /(javascript|json|xml|svg|yaml|toml|subrip)/.test(type);
}
