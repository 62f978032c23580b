// GET/PUT /api/me/notifications: the body and the answer.
import { Type, type TSchema } from '@sinclair/typebox';
import { KINDS, SUBMISSION_MODES, type Kind } from './preferences.ts';

/** One field per email kind, each with this schema. */
const perKind = <S extends TSchema>(schema: S) => Object.fromEntries(KINDS.map((k) => [k, schema])) as Record<Kind, S>;

const SubmissionMode = Type.Union(SUBMISSION_MODES.map((m) => Type.Literal(m)));

/** Only the fields it names change. */
export const PutPreferencesBody = Type.Object(
  {
    ...perKind(Type.Optional(Type.Boolean())),
    submissions: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 40 }), SubmissionMode, { maxProperties: 500, description: 'canvas id → mode' }),
    ),
  },
  { additionalProperties: false },
);

/** Every kind on unless turned off; new-submission mail per canvas the caller owns. */
export const PreferencesAnswer = Type.Object({
  emailEnabled: Type.Boolean({ description: 'false when this instance sends no email at all' }),
  ...perKind(Type.Boolean()),
  submissions: Type.Record(Type.String(), SubmissionMode, { description: 'canvas id → off, immediate or hourly' }),
});
