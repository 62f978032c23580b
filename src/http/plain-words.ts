// What a person reads when a body does not fit its schema: the checker's own
// words ("Expected string length greater or equal to 1") reach the dashboard's
// toasts and API clients alike, so the common cases are said plainly here.
import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';

export interface CheckerError {
  type?: ValueErrorType;
  message: string;
  schema?: TSchema;
}

const count = (n: unknown, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Refusals that say the same whatever the schema. */
const FIXED: Partial<Record<ValueErrorType, string>> = {
  [ValueErrorType.ObjectRequiredProperty]: 'is required',
  [ValueErrorType.ObjectAdditionalProperties]: 'unknown field',
  [ValueErrorType.String]: 'must be text',
  [ValueErrorType.Number]: 'must be a number',
  [ValueErrorType.Integer]: 'must be a whole number',
  [ValueErrorType.Boolean]: 'must be true or false',
  [ValueErrorType.Array]: 'must be a list',
  [ValueErrorType.ArrayUniqueItems]: 'must not repeat an item',
  [ValueErrorType.Object]: 'must be an object',
};

/** The refusal in plain words, or the checker's own (lower-cased) when it is not a common case. */
export function plainWords(error: CheckerError | undefined): string {
  if (!error) return 'invalid';
  const fixed = error.type === undefined ? undefined : FIXED[error.type];
  if (fixed !== undefined) return fixed;
  const s = (error.schema ?? {}) as Record<string, unknown>;
  switch (error.type) {
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? 'must not be empty' : `must be at least ${count(s.minLength, 'character', 'characters')}`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${count(s.maxLength, 'character', 'characters')}`;
    case ValueErrorType.StringFormat:
      return `must be a valid ${String(s.format)}`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `must be at least ${s.minimum}`;
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `must be at most ${s.maximum}`;
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
      return `must be more than ${s.exclusiveMinimum}`;
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return `must be less than ${s.exclusiveMaximum}`;
    case ValueErrorType.ArrayMinItems:
      return s.minItems === 1 ? 'must not be empty' : `must have at least ${count(s.minItems, 'item', 'items')}`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${count(s.maxItems, 'item', 'items')}`;
    case ValueErrorType.ObjectMaxProperties:
      return `must have at most ${count(s.maxProperties, 'entry', 'entries')}`;
    default:
      return error.message === 'Unexpected property' ? 'unknown field' : error.message.replace(/^Expected/, 'expected');
  }
}
