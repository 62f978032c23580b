// The MCP tools (spec "Agent tool (MCP) equivalents"; CONTRACT §9): each one
// calls the same service as its HTTP route, as the token's (or session's)
// user, with the same rights and codes. No deploy, coordination or rollback
// logic lives here: only argument decoding and the result shapes.
import { z } from 'zod';
import { managedCanvas, type Actor } from '../canvases/authority.ts';
import { setCapabilities } from '../canvases/capabilities.ts';
import { createCanvas, getCanvas, listCanvases, regenerateKey, updateCanvas } from '../canvases/service.ts';
import { canvasView, listedCanvasView } from '../canvases/view.ts';
import type { AppContext } from '../context.ts';
import { enforceDeployRate } from '../deploy/key-auth.ts';
import { rollback, unpublish } from '../deploy/lifecycle.ts';
import type { UploadService } from '../deploy/upload/service.ts';
import { liveFile } from '../deploy/views.ts';
import { AppError } from '../errors.ts';
import { sha256Hex } from '../ids.ts';
import { BROWSE_LIMITS, type BrowseKind } from '../canvas-data/browse.ts';
import type { CanvasDataService } from '../canvas-data/service.ts';
import { exportStream } from '../canvas-data/format.ts';
import { deployBlock } from './deploy-block.ts';

/** get_canvas_file inlines content up to this size; above it, metadata and the hash only. */
export const INLINE_FILE_MAX = 256 * 1024;

export interface ToolDeps {
  ctx: AppContext;
  uploads: UploadService;
  data: CanvasDataService;
}

/** export_canvas_data answers at most this much text; a larger export says so and names the HTTP route for all of it. */
export const EXPORT_INLINE_MAX = 1024 * 1024;

export interface Tool {
  name: string;
  description: string;
  input: z.ZodRawShape;
  run(actor: Actor, args: Record<string, unknown>): Promise<unknown> | unknown;
}

const canvasId = z.string().min(1).describe('The canvas id (not its slug), as create_canvas, get_canvas or list_canvases give it.');
const coordination = {
  releaseId: z
    .string()
    .optional()
    .describe('Your identity for this release (e.g. a commit hash): deploying the live one again is a no-op.'),
  expectedPublicationToken: z
    .string()
    .optional()
    .describe('The publicationToken you last read: if someone published or unpublished since, the deploy fails with PUBLICATION_CHANGED.'),
  preview: z
    .boolean()
    .optional()
    .describe(
      'true: make a ready version without going live (outcome "preview", with previewUrl to look at it); make it live later with rollback_canvas.',
    ),
};
const fileEntry = z.object({
  path: z.string().min(1).describe('Path inside the site, e.g. "index.html" or "assets/app.js".'),
  content: z.string().describe('The file content, encoded as `encoding` says.'),
  encoding: z.string().describe('"utf8" for text, "base64" for binary files.'),
});

const dataKind = z.enum(['kv', 'collection', 'submissions', 'files']);
const dataName = z.string().optional().describe('The collection (kind "collection") or submissions collection (kind "submissions").');

/** The kind and name of a data tool's call: a collection or submissions collection needs its name. */
function dataTarget(a: Record<string, unknown>): { kind: BrowseKind; name: string | null } {
  const kind = a.kind as BrowseKind;
  const name = (a.name as string | undefined) ?? null;
  if ((kind === 'collection' || kind === 'submissions') && name === null)
    throw new AppError('INVALID_BODY', `name: required for kind "${kind}"`);
  return { kind, name };
}

/** The tools, in the order tools/list shows them. */
export function easelTools({ ctx, uploads, data }: ToolDeps): Tool[] {
  const view = async (actor: Actor, id: string) => {
    const r = await getCanvas(ctx, actor, id);
    return canvasView(ctx.config, r.canvas, r.role);
  };
  const managed = async (actor: Actor, id: string) => (await managedCanvas(ctx, actor, id, 'manage')).canvas;

  /** Begin, stage what the server lacks, finalize: the staged-upload service, as the user. */
  const deployFiles = async (actor: Actor, id: string, files: FileArg[], c: Coordination) => {
    const canvas = await managed(actor, id);
    await enforceDeployRate(ctx, canvas.id);
    const decoded = files.map(decodeFile);
    const manifest = decoded.map((f) => ({ path: f.path, hash: f.hash, size: f.bytes.byteLength }));
    const begun = await uploads.begin(canvas, actor.user.id, { manifest, ...c });
    if (begun.kind === 'already_current') return begun.result;
    await stageFrom(actor, canvas.id, begun.uploadId, begun.missingHashes, decoded);
    return uploads.finalize(canvas, actor.user.id, begun.uploadId, c, { auditKind: 'token' });
  };
  const stageFrom = async (actor: Actor, id: string, uploadId: string, hashes: string[], files: DecodedFile[]) => {
    const byHash = new Map(files.map((f) => [f.hash, f.bytes]));
    for (const hash of hashes) {
      const bytes = byHash.get(hash);
      if (!bytes) continue;
      await uploads.stage(id, actor.user.id, uploadId, hash, new Blob([bytes as Uint8Array<ArrayBuffer>]).stream(), bytes.byteLength);
    }
  };

  return [
    {
      name: 'list_canvases',
      description: 'Lists the canvases you own or are on the list of, newest first, with your role on each.',
      input: {},
      run: async (actor) => ({ canvases: (await listCanvases(ctx, actor)).map((r) => listedCanvasView(ctx.config, r.canvas, r.role)) }),
    },
    {
      name: 'create_canvas',
      description:
        'Creates a restricted, unpublished canvas you own. Answers the canvas, its deploy key (shown this once: keep it secret) and where to deploy.',
      input: {
        title: z.string().min(1).max(200).describe('The title, 1-200 characters.'),
        slug: z.string().optional().describe('The URL name (3-63 lowercase letters, digits, hyphens); derived from the title when absent.'),
      },
      run: async (actor, a) => {
        const created = await createCanvas(ctx, actor, { title: a.title as string, slug: a.slug as string | undefined });
        return {
          canvas: canvasView(ctx.config, created.canvas, created.role),
          apiKey: created.apiKey,
          deploy: deployBlock(ctx.config, created.canvas.id),
        };
      },
    },
    {
      name: 'regenerate_deploy_key',
      description: 'Issues a new deploy key for a canvas you own (the old one stops working at once). Answers the key, shown this once.',
      input: { canvasId },
      run: async (actor, a) => ({
        ...(await regenerateKey(ctx, actor, a.canvasId as string)),
        deploy: deployBlock(ctx.config, a.canvasId as string),
      }),
    },
    {
      name: 'get_canvas',
      description:
        'Reads a canvas you manage: sharing, capabilities, its publicationToken and runtimePolicyRevision (needed by set_capabilities), and where to deploy.',
      input: { canvasId },
      run: async (actor, a) => ({ canvas: await view(actor, a.canvasId as string), deploy: deployBlock(ctx.config, a.canvasId as string) }),
    },
    {
      name: 'get_canvas_file',
      description: `Reads one file of the live version: path, size, mime and sha256 hash, plus its content (utf8 or base64) when it is at most ${INLINE_FILE_MAX / 1024} KiB.`,
      input: { canvasId, path: z.string().min(1).describe('The file path inside the site, e.g. "index.html".') },
      run: async (actor, a) => {
        const file = await liveFile(ctx, await managed(actor, a.canvasId as string), a.path as string);
        const meta = { path: file.path, size: file.size, mime: file.mime, hash: file.hash };
        if (file.size > INLINE_FILE_MAX) return meta;
        if (!(await ctx.blobs.local(file.hash))) throw new Error(`blob ${file.hash} of a live version is missing`);
        const bytes = new Uint8Array(await ctx.blobs.file(file.hash).arrayBuffer());
        const text = utf8OrNull(bytes);
        return text === null
          ? { ...meta, content: Buffer.from(bytes).toString('base64'), encoding: 'base64' }
          : { ...meta, content: text, encoding: 'utf8' };
      },
    },
    {
      name: 'set_capabilities',
      description:
        "Switches a canvas's runtime capabilities and sets its runtime policy. expectedRuntimePolicy must be the runtimePolicyRevision you last read (null at first); runtimePolicy is the whole document.",
      input: {
        canvasId,
        expectedRuntimePolicy: z.string().nullable().describe('The runtimePolicyRevision from get_canvas (null when none was saved yet).'),
        runtimePolicy: z
          .record(z.string(), z.unknown())
          .nullable()
          .optional()
          .describe('The full runtime policy document (collections, fileGroups, channels…).'),
        backend: z.boolean().optional(),
        kv: z.boolean().optional(),
        files: z.boolean().optional(),
        ai: z.boolean().optional(),
        realtime: z.boolean().optional(),
        authoring: z.boolean().optional(),
        aiAudience: z.enum(['editors', 'viewers']).optional(),
        connectionsAudience: z.enum(['editors', 'viewers']).optional(),
      },
      run: async (actor, a) => {
        const { canvasId: id, ...patch } = a;
        const r = await setCapabilities(ctx, actor, id as string, patch as Parameters<typeof setCapabilities>[3]);
        return { canvas: canvasView(ctx.config, r.canvas, r.role) };
      },
    },
    {
      name: 'update_canvas',
      description:
        "Changes a canvas's title, slug or sharing: accessMode restricted, whole_org or public_link; a password (null removes it); expiresAt in epoch ms (null: never).",
      input: {
        canvasId,
        title: z.string().optional(),
        slug: z.string().optional(),
        accessMode: z.enum(['restricted', 'whole_org', 'public_link']).optional(),
        password: z.string().nullable().optional(),
        expiresAt: z.number().int().nullable().optional(),
      },
      run: async (actor, a) => {
        const { canvasId: id, ...patch } = a;
        const r = await updateCanvas(ctx, actor, id as string, patch);
        return { canvas: canvasView(ctx.config, r.canvas, r.role) };
      },
    },
    {
      name: 'deploy_canvas',
      description:
        'Publishes a whole site in one call: every file with its content. Files the server already holds are not sent again. Answers the DeployResult (outcome, version, url…).',
      input: { canvasId, files: z.array(fileEntry).min(1).describe('Every file of the site; index.html at the root.'), ...coordination },
      run: (actor, a) => deployFiles(actor, a.canvasId as string, a.files as FileArg[], coordinationOf(a)),
    },
    {
      name: 'begin_deploy',
      description:
        'Starts a staged deploy for large sites: send the manifest [{path, hash (sha256 hex), size}]; answers uploadId and the missingHashes to send with add_files, then call finalize_deploy.',
      input: {
        canvasId,
        manifest: z
          .array(z.object({ path: z.string(), hash: z.string(), size: z.number().int() }))
          .describe('Every file: path, sha256 (lowercase hex), size in bytes.'),
        ...coordination,
      },
      run: async (actor, a) => {
        const canvas = await managed(actor, a.canvasId as string);
        await enforceDeployRate(ctx, canvas.id);
        const begun = await uploads.begin(canvas, actor.user.id, { manifest: a.manifest, ...coordinationOf(a) });
        return begun.kind === 'already_current' ? begun.result : { uploadId: begun.uploadId, missingHashes: begun.missingHashes };
      },
    },
    {
      name: 'add_files',
      description: 'Sends files of a begun deploy (their content must hash to the manifest entries). Answers the hashes still missing.',
      input: { canvasId, uploadId: z.string().describe('From begin_deploy.'), files: z.array(fileEntry).min(1) },
      run: async (actor, a) => {
        const canvas = await managed(actor, a.canvasId as string);
        const decoded = (a.files as FileArg[]).map(decodeFile);
        const hashes = [...new Set(decoded.map((f) => f.hash))];
        await stageFrom(actor, canvas.id, a.uploadId as string, hashes, decoded);
        return { staged: hashes };
      },
    },
    {
      name: 'finalize_deploy',
      description: 'Publishes a begun deploy once every missing file was sent. Answers the DeployResult.',
      input: { canvasId, uploadId: z.string().describe('From begin_deploy.'), ...coordination },
      run: async (actor, a) => {
        const canvas = await managed(actor, a.canvasId as string);
        await enforceDeployRate(ctx, canvas.id);
        return uploads.finalize(canvas, actor.user.id, a.uploadId as string, coordinationOf(a), { auditKind: 'token' });
      },
    },
    {
      name: 'rollback_canvas',
      description: 'Makes a kept earlier version live again (a pointer move; no new version). Answers {url, version}.',
      input: {
        canvasId,
        version: z.number().int().min(1).describe('The version number, from get_canvas or the Deploy API versions list.'),
      },
      run: async (actor, a) => {
        const canvas = await managed(actor, a.canvasId as string);
        await enforceDeployRate(ctx, canvas.id);
        return rollback(ctx, canvas, a.version as number, { id: actor.user.id, kind: 'token' });
      },
    },
    {
      name: 'export_canvas_data',
      description: `Exports what a canvas you own or edit has collected, exactly as its runtime API would let you read it: shared KV keys, a collection's records, a submissions collection, or the list of runtime files. Answers the text (JSON array, NDJSON or CSV) up to ${EXPORT_INLINE_MAX / 1024} KiB; past that it is cut at a whole row, with truncated: true and the URL that serves all of it.`,
      input: {
        canvasId,
        kind: z.enum(['kv', 'collection', 'submissions', 'files']).describe('What to export.'),
        name: z.string().optional().describe('The collection (kind "collection") or submissions collection (kind "submissions").'),
        format: z.enum(['json', 'ndjson', 'csv']).optional().describe('json (the default), ndjson or csv.'),
      },
      run: async (actor, a) => {
        const { kind, name } = dataTarget(a);
        const format = (a.format as 'json' | 'ndjson' | 'csv' | undefined) ?? 'json';
        const m = await managedCanvas(ctx, actor, a.canvasId as string, 'manage');
        const prepared = await data.prepare(m.canvas, actor.user, m.role, kind, name);
        await data.audited(m.canvas.id, actor.user.id, m.asAdmin, kind, name, format);
        const { text, truncated } = await firstBytes(exportStream(format, prepared.columns, prepared.rows), EXPORT_INLINE_MAX);
        const path = kind === 'collection' ? `collections/${name}` : kind === 'submissions' ? `submissions/${name}` : kind;
        const url = `${ctx.config.baseUrl.replace(/\/$/, '')}/api/canvases/${m.canvas.id}/data/${path}?format=${format}`;
        return { format, content: text, truncated, url };
      },
    },
    {
      name: 'browse_canvas_data',
      description:
        "A page of what a canvas you own or edit has collected (shared KV keys, a collection's records, a submissions collection, or runtime files), by the same rules as export_canvas_data, with an optional search. Answers {items, next}: pass next as `after` for the following page (null: the last).",
      input: {
        canvasId,
        kind: dataKind.describe('What to browse.'),
        name: dataName,
        q: z
          .string()
          .optional()
          .describe("Only items whose key or id or value text (a file's name) holds this, case-insensitively, taken literally."),
        after: z.string().optional().describe('The `next` of the previous page.'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(BROWSE_LIMITS.maxPage)
          .optional()
          .describe(`Items per page (default ${BROWSE_LIMITS.defaultPage}).`),
      },
      run: async (actor, a) => {
        const { kind, name } = dataTarget(a);
        const m = await managedCanvas(ctx, actor, a.canvasId as string, 'manage');
        const query: Record<string, string> = {};
        for (const key of ['q', 'after', 'limit'] as const) if (a[key] !== undefined) query[key] = String(a[key]);
        return JSON.parse(await data.browse(m.canvas, actor.user, m.role, kind, name, query)) as unknown;
      },
    },
    {
      name: 'delete_canvas_data_item',
      description:
        "Deletes one item of a canvas's data as its runtime API would let you: a shared KV key (owners and editors), a collection record (its policy's delete rule), someone's submission (owners and editors) or a runtime file. Audited.",
      input: {
        canvasId,
        kind: dataKind.describe('What kind of item.'),
        name: dataName,
        item: z
          .string()
          .min(1)
          .describe('The key (kv), record id (collection), user id (submissions) or file id (files), as browse_canvas_data lists it.'),
      },
      run: async (actor, a) => {
        const { kind, name } = dataTarget(a);
        const m = await managedCanvas(ctx, actor, a.canvasId as string, 'manage');
        return data.remove(m.canvas, actor.user, m.role, kind, name, a.item as string);
      },
    },
    {
      name: 'unpublish_canvas',
      description: 'Takes the canvas offline: no live version, sharing back to restricted; its versions are kept for a rollback.',
      input: { canvasId },
      run: async (actor, a) => unpublish(ctx, await managed(actor, a.canvasId as string), { id: actor.user.id, kind: 'token' }),
    },
  ];
}

/** The stream's text up to `max` bytes, cut after the last whole line when it runs over. */
async function firstBytes(stream: ReadableStream<Uint8Array>, max: number): Promise<{ text: string; truncated: boolean }> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length > max) {
      await stream.cancel().catch(() => {});
      return { text: text.slice(0, text.lastIndexOf('\n', max) + 1), truncated: true };
    }
  }
  return { text: text + decoder.decode(), truncated: false };
}

interface FileArg {
  path: string;
  content: string;
  encoding: string;
}
interface Coordination {
  releaseId?: string;
  expectedPublicationToken?: string;
  preview?: boolean;
}

function coordinationOf(a: Record<string, unknown>): Coordination {
  return {
    releaseId: a.releaseId as string | undefined,
    expectedPublicationToken: a.expectedPublicationToken as string | undefined,
    preview: a.preview as boolean | undefined,
  };
}

interface DecodedFile {
  path: string;
  bytes: Uint8Array;
  hash: string;
}

function decodeFile(f: FileArg): DecodedFile {
  const bytes = decodeContent(f);
  return { path: f.path, bytes, hash: sha256Hex(bytes) };
}

/** `utf8` or `base64` (strict: a malformed base64 string is refused, not half-decoded); anything else is INVALID_ENCODING. */
function decodeContent(f: FileArg): Uint8Array {
  if (f.encoding === 'utf8') return new TextEncoder().encode(f.content);
  if (f.encoding === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(f.content) || f.content.length % 4 !== 0) {
      throw new AppError('INVALID_ENCODING', `${f.path}: content is not valid base64`);
    }
    return new Uint8Array(Buffer.from(f.content, 'base64'));
  }
  throw new AppError('INVALID_ENCODING', `${f.path}: encoding must be "utf8" or "base64"`);
}

function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
