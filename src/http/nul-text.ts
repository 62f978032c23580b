import { Kind, type TSchema } from '@sinclair/typebox';

/**
 * The path (dotted, like the schema refusals) of the first string the schema
 * types as text that holds a NUL (U+0000), or null. SQLite stores such text
 * and Postgres's text type never does, so it is refused where it arrives, on
 * either engine, instead of by the database. Values the schema leaves free
 * (`Unknown`: KV values, records, submissions) are stored as JSON, where a NUL
 * is an escape, and stay untouched; so does a string that carries
 * `contentMediaType` (a file's content: bytes, where a NUL is data).
 */
export function nulTextPath(schema: TSchema, value: unknown, path = 'body'): string | null {
  switch (schema[Kind]) {
    case 'String':
      return typeof value === 'string' && schema.contentMediaType === undefined && value.includes('\0') ? path : null;
    case 'Object': {
      if (!isObject(value)) return null;
      const properties = schema.properties as Record<string, TSchema>;
      for (const [name, inner] of Object.entries(properties)) {
        const found = name in value ? nulTextPath(inner, value[name], join(path, name)) : null;
        if (found) return found;
      }
      return null;
    }
    case 'Record': {
      if (!isObject(value)) return null;
      const [inner] = Object.values(schema.patternProperties as Record<string, TSchema>);
      for (const [name, item] of Object.entries(value)) {
        if (name.includes('\0')) return path;
        const found = inner ? nulTextPath(inner, item, join(path, name)) : null;
        if (found) return found;
      }
      return null;
    }
    case 'Array': {
      if (!Array.isArray(value)) return null;
      for (const [index, item] of value.entries()) {
        const found = nulTextPath(schema.items as TSchema, item, join(path, String(index)));
        if (found) return found;
      }
      return null;
    }
    case 'Union':
      for (const variant of schema.anyOf as TSchema[]) {
        const found = nulTextPath(variant, value, path);
        if (found) return found;
      }
      return null;
    default:
      return null;
  }
}

const join = (path: string, name: string) => (path === 'body' ? name : `${path}.${name}`);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
