import { Type } from '@sinclair/typebox';

/**
 * The latest instant a JavaScript Date can hold (ECMA-262, "Time Values and
 * Time Range"). A time a request names is refused past it: no page could show
 * it, and far beyond it a 64-bit database column overflows (a 500 on Postgres).
 */
export const LATEST_DATE_MS = 8.64e15;

/** A request field holding a moment, in milliseconds since the epoch. */
export const epochMs = (description = 'epoch milliseconds') => Type.Integer({ minimum: 0, maximum: LATEST_DATE_MS, description });
