// Reading one entry of the stored runtime policy document. The document was
// validated when it was saved (src/policy/document.ts); reading stays
// defensive anyway, so an odd stored document configures nothing rather than
// throwing, and a name is looked up as an own property only.
import { PRESETS, type CollectionPolicy, type FileGroupPolicy } from './document.ts';

function entryOf(runtimePolicy: unknown, section: 'collections' | 'fileGroups', name: string): unknown {
  if (typeof runtimePolicy !== 'object' || runtimePolicy === null) return null;
  const map = (runtimePolicy as Record<string, unknown>)[section];
  if (typeof map !== 'object' || map === null || !Object.hasOwn(map, name)) return null;
  const entry = (map as Record<string, unknown>)[name];
  const preset = typeof entry === 'object' && entry !== null ? (entry as { preset?: unknown }).preset : undefined;
  return (PRESETS as readonly unknown[]).includes(preset) ? entry : null;
}

/** The configured entry of collection `name`, or null when the document has none. */
export function collectionPolicy(runtimePolicy: unknown, name: string): CollectionPolicy | null {
  return entryOf(runtimePolicy, 'collections', name) as CollectionPolicy | null;
}

/** The configured entry of file group `name`, or null when the document has none. */
export function fileGroupPolicy(runtimePolicy: unknown, name: string): FileGroupPolicy | null {
  return entryOf(runtimePolicy, 'fileGroups', name) as FileGroupPolicy | null;
}
