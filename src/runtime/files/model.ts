import { Type, type Static } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';

/** PATCH /files/{id}: a nonempty name of at most 255 characters (checked again after trimming). */
export const RenameBody = Type.Object({ name: Type.String({ minLength: 1 }) });
export type RenameBody = Static<typeof RenameBody>;

/** Runtime file ids are newId()s: 20 lowercase base36 characters. */
export const FILE_ID = /^[0-9a-z]{20}$/;

/** A file id from a path segment, or 400. */
export function fileId(raw: string): string {
  if (!FILE_ID.test(raw)) throw new AppError('INVALID_BODY', 'malformed file id');
  return raw;
}
