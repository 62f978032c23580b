import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';

export const healthRoutes = (ctx: AppContext) => new Elysia({ name: 'health' }).get('/healthz', () => ({ ok: true, version: ctx.version }));
