// passes: embedded — a pure function over TypeBox's own errors, no server
// A body that does not fit its schema is refused in words a person reads
// (src/http/plain-words.ts), through the one check routes and services use
// (checkStrict, as readJson does): each common case, with its exact message.
import { describe, expect, test } from 'bun:test';
import { Type as T, type TSchema } from '@sinclair/typebox';
import { checkStrict } from '../src/http/json-body.ts';
import { AppError } from '../src/errors.ts';

/** The refusal's message for `value` under `{ a: schema }` (no other field allowed). */
function refusal(schema: TSchema, value: unknown): string {
  try {
    checkStrict(T.Object({ a: schema }, { additionalProperties: false }), { a: value });
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect([(err as AppError).errorCode, (err as AppError).status]).toEqual(['INVALID_BODY', 400]);
    return (err as AppError).message;
  }
  throw new Error('the value fitted its schema');
}

describe('plain words for what does not fit', () => {
  const cases: Array<[string, TSchema, unknown, string]> = [
    ['text', T.String(), 5, 'a: must be text'],
    ['empty text', T.String({ minLength: 1 }), '', 'a: must not be empty'],
    ['short text', T.String({ minLength: 3 }), 'ab', 'a: must be at least 3 characters'],
    ['long text, one character', T.String({ maxLength: 1 }), 'ab', 'a: must be at most 1 character'],
    ['long text', T.String({ maxLength: 100 }), 'x'.repeat(101), 'a: must be at most 100 characters'],
    ['a number', T.Number(), 'x', 'a: must be a number'],
    ['a whole number', T.Integer(), 1.5, 'a: must be a whole number'],
    ['a minimum', T.Integer({ minimum: 1 }), 0, 'a: must be at least 1'],
    ['a maximum', T.Number({ maximum: 10 }), 11, 'a: must be at most 10'],
    ['an exclusive minimum', T.Number({ exclusiveMinimum: 0 }), 0, 'a: must be more than 0'],
    ['an exclusive maximum', T.Integer({ exclusiveMaximum: 10 }), 10, 'a: must be less than 10'],
    ['true or false', T.Boolean(), 'yes', 'a: must be true or false'],
    ['a list', T.Array(T.String()), 'x', 'a: must be a list'],
    ['an empty list', T.Array(T.String(), { minItems: 1 }), [], 'a: must not be empty'],
    ['too few items', T.Array(T.String(), { minItems: 2 }), ['x'], 'a: must have at least 2 items'],
    ['too many items, one', T.Array(T.String(), { maxItems: 1 }), ['x', 'y'], 'a: must have at most 1 item'],
    ['a repeated item', T.Array(T.String(), { uniqueItems: true }), ['x', 'x'], 'a: must not repeat an item'],
    ['an object', T.Object({ b: T.String() }), 'x', 'a: must be an object'],
    [
      'too many entries',
      T.Record(T.String(), T.String(), { maxProperties: 2 }),
      { x: '1', y: '2', z: '3' },
      'a: must have at most 2 entries',
    ],
    ['a field nested', T.Object({ b: T.String({ minLength: 1 }) }), { b: '' }, 'a.b: must not be empty'],
    ['a unit named', T.Integer({ description: 'epoch milliseconds' }), 'soon', 'a: must be a whole number (epoch milliseconds)'],
    ['one of some values', T.Union([T.Literal('x'), T.Literal('y'), T.Null()]), 'z', 'a: expected one of "x", "y" or null'],
  ];
  for (const [name, schema, value, message] of cases) test(name, () => expect(refusal(schema, value)).toBe(message));

  test('a required field, and a field the schema does not know', () => {
    const schema = T.Object({ a: T.String() }, { additionalProperties: false });
    expect(() => checkStrict(schema, {})).toThrow('a: is required');
    expect(() => checkStrict(schema, { a: 'x', b: 1 })).toThrow('b: unknown field');
  });
});
