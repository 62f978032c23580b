// The gallery's bodies and answers (src/gallery/routes.ts). Closed bodies: unknown fields are refused.
import { Type as T } from '@sinclair/typebox';

export const GalleryBody = T.Object(
  { listed: T.Optional(T.Boolean()), templatable: T.Optional(T.Boolean()) },
  { additionalProperties: false },
);
export const UseTemplateBody = T.Object({ title: T.Optional(T.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false });

export const GallerySettingsAnswer = T.Object({
  listed: T.Boolean({ description: 'shown in the gallery to those who may open it' }),
  templatable: T.Boolean({ description: 'offered as a template' }),
});

export const GalleryList = T.Object({
  canvases: T.Array(
    T.Object({
      id: T.String(),
      slug: T.String(),
      title: T.String(),
      url: T.String(),
      ownerName: T.String(),
      templatable: T.Boolean(),
      hasPassword: T.Boolean(),
    }),
  ),
});
