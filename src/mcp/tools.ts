// The MCP tools (spec "Agent tool (MCP) equivalents"; CONTRACT §9): each one
// calls the same service as its HTTP route, as the token's (or session's)
// user, with the same rights and codes. No deploy, coordination or rollback
// logic lives here: only argument decoding and the result shapes.
import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { Actor } from '../canvases/authority.ts';
import type { CapabilitiesPatch } from '../canvases/capabilities.ts';
import { CapabilitiesBody, CreateCanvasBody, PatchCanvasBody } from '../canvases/model.ts';
import type { CanvasService } from '../canvases/service.ts';
import { canvasView, listedCanvasView } from '../canvases/view.ts';
import type { Core } from '../foundation.ts';
import { BeginUploadBody, FinalizeBody, RollbackBody } from '../deploy/model.ts';
import type { DeployFeature } from '../deploy/feature.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import { sha256Hex } from '../ids.ts';
import { BROWSE_LIMITS, BrowseQuery, type BrowseKind } from '../canvas-data/browse.ts';
import { ExportQuery } from '../canvas-data/model.ts';
import type { CanvasDataService } from '../canvas-data/service.ts';
import { exportStream } from '../canvas-data/format.ts';
import { deployBlock } from './deploy-block.ts';

/** get_canvas_file inlines content up to this size; above it, metadata and the hash only. */
export const INLINE_FILE_MAX = 256 * 1024;

export interface ToolDeps {
  ctx: Pick<Core, 'auth' | 'blobs' | 'config' | 'events' | 'limiter' | 'version'>;
  /** Canvas management: the same service as /api/canvases. */
  canvases: CanvasService;
  /** The staged upload, the live manifest's read-back, rollback, unpublish and the deploy-class rate. */
  deploy: DeployFeature;
  data: CanvasDataService;
}

/** export_canvas_data answers at most this much text; a larger export says so and names the HTTP route for all of it. */
export const EXPORT_INLINE_MAX = 1024 * 1024;

export interface Tool {
  name: string;
  description: string;
  /**
   * The arguments as a closed TypeBox object: listed as JSON Schema by
   * tools/list and checked (routes.ts) by the same checker as the HTTP
   * bodies. Fields an HTTP route also takes come from that route's model.
   */
  input: TObject;
  /**
   * What calling it does, for a client deciding whether to ask its person
   * first (MCP tool annotations): `read` changes nothing; `change` adds or
   * stages; `replace` may take away what was there (the live site, a key,
   * sharing, data). Nothing here reaches past this server.
   */
  effect: 'read' | 'change' | 'replace';
  /** The same arguments twice leave what once does (a rollback to one version, an unpublish). */
  idempotent?: boolean;
  /** The code of a refused argument: the matching HTTP route's (default INVALID_BODY). */
  invalid?: ErrorCode;
  run(actor: Actor, args: Record<string, unknown>): Promise<unknown> | unknown;
}

const closed = { additionalProperties: false } as const;

/** Each described field's undescribed original: arguments are checked against those (see checkedInput). */
const undescribed = new WeakMap<TSchema, TSchema>();

/**
 * A field with an agent-facing description for tools/list. A description the
 * model already has (a unit, which refusals quote) is kept.
 */
function described<S extends TSchema>(schema: S, description: string): S {
  if (schema.description !== undefined) return schema;
  const out = { ...schema, description };
  undescribed.set(out, schema);
  return out;
}

/**
 * The schema a tool's arguments are checked against: its input with each
 * field as the model has it, so a refusal reads exactly as the HTTP route's
 * (the checker quotes a field's description as its unit).
 */
export function checkedInput(input: TObject): TObject {
  const properties = Object.fromEntries(Object.entries(input.properties).map(([k, s]) => [k, undescribed.get(s) ?? s]));
  return Type.Object(properties, closed);
}

/** A model's fields, each described for agents (every field must be named: a new one needs its words). */
function fields<P extends TProperties>(model: TObject<P>, descriptions: { [K in keyof P]: string }): P {
  const out = {} as P;
  for (const key of Object.keys(model.properties) as (keyof P)[]) out[key] = described(model.properties[key], descriptions[key]);
  return out;
}

const canvasId = described(
  Type.String({ minLength: 1 }),
  'The canvas id (not its slug), as create_canvas, get_canvas or list_canvases give it.',
);
const coordination = {
  releaseId: 'Your identity for this release (e.g. a commit hash): deploying the live one again is a no-op.',
  expectedPublicationToken:
    'The publicationToken you last read: if someone published or unpublished since, the deploy fails with PUBLICATION_CHANGED.',
  preview:
    'true: make a ready version without going live (outcome "preview", with previewUrl to look at it); make it live later with rollback_canvas.',
};
/** deploy_canvas begins and finalizes in one call: the finalize fields. */
const deployCoordination = fields(FinalizeBody, coordination);
const fileEntry = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'Path inside the site, e.g. "index.html" or "assets/app.js".' }),
    // contentMediaType: bytes, not text to store (a NUL in a file is data; see http/nul-text.ts).
    content: Type.String({ description: 'The file content, encoded as `encoding` says.', contentMediaType: 'application/octet-stream' }),
    encoding: Type.String({ description: '"utf8" for text, "base64" for binary files.' }),
  },
  closed,
);

const uploadId = described(Type.String(), 'From begin_deploy.');
const dataKind = Type.Union([Type.Literal('kv'), Type.Literal('collection'), Type.Literal('submissions'), Type.Literal('files')]);
const dataName = described(
  Type.Optional(Type.String()),
  'The collection (kind "collection") or submissions collection (kind "submissions").',
);

/** The kind and name of a data tool's call: a collection or submissions collection needs its name. */
function dataTarget(a: Record<string, unknown>): { kind: BrowseKind; name: string | null } {
  const kind = a.kind as BrowseKind;
  const name = (a.name as string | undefined) ?? null;
  if ((kind === 'collection' || kind === 'submissions') && name === null)
    throw new AppError('INVALID_BODY', `name: required for kind "${kind}"`);
  return { kind, name };
}

/** The tools, in the order tools/list shows them. */
export function easelTools({ ctx, canvases, deploy, data }: ToolDeps): Tool[] {
  const { uploads, views } = deploy;
  const view = async (actor: Actor, id: string) => {
    const r = await canvases.get(actor, id);
    return canvasView(ctx.config, r.canvas, r.role);
  };
  const managed = async (actor: Actor, id: string) => (await canvases.managed(actor, id, 'manage')).canvas;

  /** Begin, stage what the server lacks, finalize: the staged-upload service, as the user. */
  const deployFiles = async (actor: Actor, id: string, files: FileArg[], c: Coordination) => {
    const canvas = await managed(actor, id);
    await deploy.rate(canvas.id);
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
      effect: 'read',
      description: 'Lists the canvases you own or are on the list of, newest first, with your role on each.',
      input: Type.Object({}, closed),
      run: async (actor) => ({ canvases: (await canvases.list(actor)).map((r) => listedCanvasView(ctx.config, r.canvas, r.role)) }),
    },
    {
      name: 'create_canvas',
      effect: 'change',
      description:
        'Creates a restricted, unpublished canvas you own. Answers the canvas, its deploy key (shown this once: keep it secret) and where to deploy.',
      input: Type.Object(
        fields(CreateCanvasBody, {
          title: 'The title, 1-200 characters.',
          slug: 'The URL name (3-63 lowercase letters, digits, hyphens); derived from the title when absent.',
        }),
        closed,
      ),
      run: async (actor, a) => {
        const created = await canvases.create(actor, { title: a.title as string, slug: a.slug as string | undefined });
        return {
          canvas: canvasView(ctx.config, created.canvas, created.role),
          apiKey: created.apiKey,
          deploy: deployBlock(ctx.config, created.canvas.id),
        };
      },
    },
    {
      name: 'regenerate_deploy_key',
      effect: 'replace',
      description: 'Issues a new deploy key for a canvas you own (the old one stops working at once). Answers the key, shown this once.',
      input: Type.Object({ canvasId }, closed),
      run: async (actor, a) => ({
        ...(await canvases.regenerateKey(actor, a.canvasId as string)),
        deploy: deployBlock(ctx.config, a.canvasId as string),
      }),
    },
    {
      name: 'get_canvas',
      effect: 'read',
      description:
        'Reads a canvas you manage: sharing, capabilities, its publicationToken and runtimePolicyRevision (needed by set_capabilities), and where to deploy.',
      input: Type.Object({ canvasId }, closed),
      run: async (actor, a) => ({ canvas: await view(actor, a.canvasId as string), deploy: deployBlock(ctx.config, a.canvasId as string) }),
    },
    {
      name: 'get_canvas_file',
      effect: 'read',
      description: `Reads one file of the live version: path, size, mime and sha256 hash, plus its content (utf8 or base64) when it is at most ${INLINE_FILE_MAX / 1024} KiB; a larger file answers the url that serves its bytes to the same token.`,
      input: Type.Object(
        { canvasId, path: described(Type.String({ minLength: 1 }), 'The file path inside the site, e.g. "index.html".') },
        closed,
      ),
      run: async (actor, a) => {
        const file = await views.liveFile(await managed(actor, a.canvasId as string), a.path as string);
        const meta = { path: file.path, size: file.size, mime: file.mime, hash: file.hash };
        if (file.size > INLINE_FILE_MAX) {
          const base = ctx.config.baseUrl.replace(/\/$/, '');
          return { ...meta, url: `${base}/api/canvases/${a.canvasId as string}/files?path=${encodeURIComponent(file.path)}` };
        }
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
      effect: 'replace',
      idempotent: true,
      description:
        "Switches a canvas's runtime capabilities and sets its runtime policy. expectedRuntimePolicy must be the runtimePolicyRevision you last read (null at first); runtimePolicy is the whole document.",
      input: Type.Object(
        {
          canvasId,
          ...fields(CapabilitiesBody, {
            backend: 'The runtime backend at all (the other runtime switches need it).',
            kv: 'Shared key-value storage.',
            files: 'Runtime file uploads.',
            ai: 'The AI chat proxy.',
            realtime: 'Realtime channels and presence.',
            authoring: 'The page may create and update canvases (easel.canvases).',
            aiAudience: 'Who may use AI: "editors" or "viewers".',
            connectionsAudience: 'Who may call Connections: "editors" or "viewers".',
            guestAi: "Lets the canvas's guests use AI (owner or admin only).",
            guestAiMonthlyUsd: "Guests' monthly ceiling on this canvas (0: none beyond the canvas cap; owner or admin only).",
            expectedRuntimePolicy: 'The runtimePolicyRevision from get_canvas (null when none was saved yet); required with runtimePolicy.',
            runtimePolicy: 'The full runtime policy document (collections, fileGroups, channels…), or null to remove it.',
          }),
        },
        closed,
      ),
      run: async (actor, a) => {
        const { canvasId: id, ...patch } = a;
        const r = await canvases.capabilities.set(actor, id as string, patch as CapabilitiesPatch);
        return { canvas: canvasView(ctx.config, r.canvas, r.role) };
      },
    },
    {
      name: 'update_canvas',
      effect: 'replace',
      idempotent: true,
      description:
        "Changes a canvas's title, slug or sharing: accessMode restricted, whole_org or public_link; a password (null removes it); expiresAt in epoch ms (null: never).",
      input: Type.Object(
        {
          canvasId,
          ...fields(PatchCanvasBody, {
            title: 'The title, 1-200 characters.',
            slug: 'The URL name (3-63 lowercase letters, digits, hyphens).',
            accessMode: 'Who may open it: restricted, whole_org or public_link.',
            password: 'A password visitors must give (null removes it).',
            expiresAt: 'When it stops being served, in epoch ms (null: never).',
            serviceWorkers: 'Lets the site register a service worker (owner or admin only).',
          }),
        },
        closed,
      ),
      run: async (actor, a) => {
        const { canvasId: id, ...patch } = a;
        const r = await canvases.update(actor, id as string, patch);
        return { canvas: canvasView(ctx.config, r.canvas, r.role) };
      },
    },
    {
      name: 'deploy_canvas',
      effect: 'replace',
      description:
        'Publishes a whole site in one call: every file with its content. Send what a browser runs (a build\'s output, or plain HTML, CSS and JavaScript), not a project\'s sources, and link files relatively ("assets/app.js", not "/assets/app.js": canvases may be served below /c/{slug}/). Files the server already holds are not sent again. Answers the DeployResult (outcome, version, url, and warnings worth reading: links the deploy lacks, TypeScript the browser cannot run…).',
      input: Type.Object(
        {
          canvasId,
          files: described(Type.Array(fileEntry, { minItems: 1 }), 'Every file of the site; index.html at the root.'),
          ...deployCoordination,
        },
        closed,
      ),
      run: (actor, a) => deployFiles(actor, a.canvasId as string, a.files as FileArg[], coordinationOf(a)),
    },
    {
      name: 'begin_deploy',
      effect: 'change',
      description:
        'Starts a staged deploy for large sites: send the manifest [{path, hash (sha256 hex), size}]; answers uploadId and the missingHashes to send with add_files, then call finalize_deploy.',
      input: Type.Object(
        { canvasId, ...fields(BeginUploadBody, { manifest: 'Every file: path, sha256 (lowercase hex), size in bytes.', ...coordination }) },
        closed,
      ),
      invalid: 'INVALID_MANIFEST',
      run: async (actor, a) => {
        const canvas = await managed(actor, a.canvasId as string);
        await deploy.rate(canvas.id);
        const begun = await uploads.begin(canvas, actor.user.id, { manifest: a.manifest, ...coordinationOf(a) });
        return begun.kind === 'already_current' ? begun.result : { uploadId: begun.uploadId, missingHashes: begun.missingHashes };
      },
    },
    {
      name: 'add_files',
      effect: 'change',
      idempotent: true,
      description: 'Sends files of a begun deploy (their content must hash to the manifest entries). Answers the hashes still missing.',
      input: Type.Object(
        { canvasId, uploadId, files: described(Type.Array(fileEntry, { minItems: 1 }), 'Files of the manifest, with their content.') },
        closed,
      ),
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
      effect: 'replace',
      description: 'Publishes a begun deploy once every missing file was sent. Answers the DeployResult.',
      input: Type.Object({ canvasId, uploadId, ...fields(FinalizeBody, coordination) }, closed),
      invalid: 'INVALID_REQUEST',
      run: async (actor, a) => {
        const canvas = await managed(actor, a.canvasId as string);
        await deploy.rate(canvas.id);
        return uploads.finalize(canvas, actor.user.id, a.uploadId as string, coordinationOf(a), { auditKind: 'token' });
      },
    },
    {
      name: 'list_versions',
      effect: 'read',
      description:
        "Lists a canvas's kept versions, newest first: number (what rollback_canvas takes), current (the live one), preview, releaseId, source, fileCount, totalBytes, createdAt, previewUrl and the deploy's warnings.",
      input: Type.Object({ canvasId }, closed),
      run: async (actor, a) => views.versionList(await managed(actor, a.canvasId as string)),
    },
    {
      name: 'rollback_canvas',
      effect: 'replace',
      idempotent: true,
      description: 'Makes a kept earlier version live again (a pointer move; no new version). Answers {url, version}.',
      input: Type.Object({ canvasId, ...fields(RollbackBody, { version: 'The version number, as list_versions gives it.' }) }, closed),
      run: async (actor, a) => {
        const canvas = await managed(actor, a.canvasId as string);
        await deploy.rate(canvas.id);
        return deploy.rollback(canvas, a.version as number, { id: actor.user.id, kind: 'token' });
      },
    },
    {
      name: 'export_canvas_data',
      effect: 'read',
      description: `Exports what a canvas you own or edit has collected, exactly as its runtime API would let you read it: shared KV keys, a collection's records, a submissions collection, or the list of runtime files. Answers the text (JSON array, NDJSON or CSV) up to ${EXPORT_INLINE_MAX / 1024} KiB; past that it is cut at a whole row, with truncated: true and the URL that serves all of it.`,
      input: Type.Object(
        {
          canvasId,
          kind: described(dataKind, 'What to export.'),
          name: dataName,
          ...fields(ExportQuery, { format: 'json (the default), ndjson or csv.' }),
        },
        closed,
      ),
      run: async (actor, a) => {
        const { kind, name } = dataTarget(a);
        const format = (a.format as 'json' | 'ndjson' | 'csv' | undefined) ?? 'json';
        const m = await canvases.managed(actor, a.canvasId as string, 'manage');
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
      effect: 'read',
      description:
        "A page of what a canvas you own or edit has collected (shared KV keys, a collection's records, a submissions collection, or runtime files), by the same rules as export_canvas_data, with an optional search. Answers {items, next}: pass next as `after` for the following page (null: the last).",
      input: Type.Object(
        {
          canvasId,
          kind: described(dataKind, 'What to browse.'),
          name: dataName,
          ...fields(BrowseQuery, {
            q: "Only items whose key or id or value text (a file's name) holds this, case-insensitively, taken literally.",
            after: 'The `next` of the previous page.',
            limit: '',
          }),
          // A number here; the HTTP query carries it as digits (BrowseQuery), checked against the same bounds.
          limit: described(
            Type.Optional(Type.Integer({ minimum: 1, maximum: BROWSE_LIMITS.maxPage })),
            `Items per page (default ${BROWSE_LIMITS.defaultPage}).`,
          ),
        },
        closed,
      ),
      run: async (actor, a) => {
        const { kind, name } = dataTarget(a);
        const m = await canvases.managed(actor, a.canvasId as string, 'manage');
        const query: Record<string, string> = {};
        for (const key of ['q', 'after', 'limit'] as const) if (a[key] !== undefined) query[key] = String(a[key]);
        return JSON.parse(await data.browse(m.canvas, actor.user, m.role, kind, name, query)) as unknown;
      },
    },
    {
      name: 'delete_canvas_data_item',
      effect: 'replace',
      idempotent: true,
      description:
        "Deletes one item of a canvas's data as its runtime API would let you: a shared KV key (owners and editors), a collection record (its policy's delete rule), someone's submission (owners and editors) or a runtime file. Audited.",
      input: Type.Object(
        {
          canvasId,
          kind: described(dataKind, 'What kind of item.'),
          name: dataName,
          item: described(
            Type.String({ minLength: 1 }),
            'The key (kv), record id (collection), user id (submissions) or file id (files), as browse_canvas_data lists it.',
          ),
        },
        closed,
      ),
      run: async (actor, a) => {
        const { kind, name } = dataTarget(a);
        const m = await canvases.managed(actor, a.canvasId as string, 'manage');
        return data.remove(m.canvas, actor.user, m.role, kind, name, a.item as string);
      },
    },
    {
      name: 'unpublish_canvas',
      effect: 'replace',
      idempotent: true,
      description: 'Takes the canvas offline: no live version, sharing back to restricted; its versions are kept for a rollback.',
      input: Type.Object({ canvasId }, closed),
      run: async (actor, a) => deploy.unpublish(await managed(actor, a.canvasId as string), { id: actor.user.id, kind: 'token' }),
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
