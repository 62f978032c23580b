import { Type } from '@sinclair/typebox';

/** POST /auth/dev/login (dev sign-in only). */
export const DevLoginBody = Type.Object(
  { email: Type.String({ maxLength: 320 }), name: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);
