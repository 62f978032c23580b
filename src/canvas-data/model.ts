import { t } from 'elysia';

export const ExportQuery = t.Object(
  { format: t.Optional(t.Union([t.Literal('json'), t.Literal('ndjson'), t.Literal('csv')], { default: 'json' })) },
  { additionalProperties: false },
);
