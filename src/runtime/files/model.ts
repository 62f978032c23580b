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

/** A file as the runtime API answers it (the SDK's `FileRecord`, sdk/wire.ts). */
export const FileRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  size: Type.Number(),
  mime: Type.String(),
  createdAt: Type.Number(),
  scope: Type.Union([Type.Literal('shared'), Type.Literal('submission')]),
  uploadedBy: Type.String(),
  group: Type.Optional(Type.String({ description: "a file of a file group: the group's policy governs it" })),
  collection: Type.Optional(Type.String({ description: "an attachment of a collection record: the record's rights govern it" })),
  recordId: Type.Optional(Type.String()),
});

/** GET /files: the files the caller may read. */
export const FileList = Type.Object({ files: Type.Array(FileRecord) });

/** POST /files (the SDK's `UploadResult`). */
export const UploadResult = Type.Object({
  id: Type.String(),
  name: Type.String(),
  size: Type.Number(),
  url: Type.String({ description: 'the content URL, root-relative' }),
});
