// passes: embedded, s3, cluster
// Browser drafts (issue 18 item 4; spec "Canvas publication state"): one per
// person and canvas, previewed on the canvas's origin, published as a version;
// a deploy syncs an unedited draft and flags an edited one stale, never
// overwriting it.
import { describe, expect, test } from 'bun:test';
import { zipSync } from 'fflate';
import { sha256Hex } from '../src/ids.ts';
import { expectCode } from './expect-code.ts';
import { body } from './harness.ts';
import { ADMIN_EMAIL, useWorld, type Who } from './world.ts';

const w = useWorld({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL }, canvas: { files: { 'index.html': '<h1>one</h1>', 'app.css': 'h1{}' } } });

const draftPath = (rest = '') => `/api/canvases/${w.canvas.id}/draft${rest}`;
const put = (who: Who, path: string, content: string | ReadableStream<Uint8Array>) =>
  w.request(who, draftPath(`/file?path=${encodeURIComponent(path)}`), { method: 'PUT', body: content });
const read = async (who: Who, path: string, from = 'draft') => {
  const res = await w.request(who, draftPath(`/file?path=${encodeURIComponent(path)}&from=${from}`));
  return { status: res.status, text: await res.text() };
};
const page = async (who: Who, rest: string) => {
  const res = await w.request(who, `/c/${w.canvas.slug}/${rest}`);
  return { status: res.status, text: await res.text(), headers: res.headers };
};
const livePage = async () => (await page('owner', '')).text;
/** The draft's preview address (its token is the credential), below the canvas root. */
const previewOf = async (who: Who, canvasPath = `/c/${w.canvas.slug}/`) => {
  const url = new URL((await w.expectOk('GET', draftPath(), who)).previewUrl);
  expect(url.pathname).toStartWith(`${canvasPath}__easel/draft/`);
  return url.pathname;
};
const fetchPath = async (path: string, who: Who | null = null) => {
  const res = who ? await w.request(who, path) : await w.app.request(path);
  return { status: res.status, text: await res.text(), headers: res.headers };
};

describe('a draft starts from the live version and is edited, previewed and published', () => {
  test('open, write, read each side, preview on the canvas origin, publish as an editor', async () => {
    const opened = await w.expectOk('GET', draftPath(), 'editor');
    expect(opened).toMatchObject({ canvasId: w.canvas.id, baseVersion: 1, liveVersion: 1, stale: null, editedCount: 0 });
    expect(opened.files.map((f: any) => [f.path, f.edited, f.text])).toEqual([
      ['app.css', false, true],
      ['index.html', false, true],
    ]);

    const written = await body(await put('editor', 'index.html', '<h1>two</h1><link rel=stylesheet href=app.css>'));
    expect(written.warnings).toEqual([]);
    expect(written.draft.editedCount).toBe(1);
    expect(await read('editor', 'index.html')).toEqual({ status: 200, text: '<h1>two</h1><link rel=stylesheet href=app.css>' });
    expect(await read('editor', 'index.html', 'base')).toEqual({ status: 200, text: '<h1>one</h1>' });
    expect(await read('editor', 'index.html', 'live')).toEqual({ status: 200, text: '<h1>one</h1>' });

    // The preview is the editor's own draft at its token's address, on the canvas's pages, with relative links
    // working and no session needed (a cross-site frame has none); the live page is untouched.
    const at = await previewOf('editor');
    const preview = await fetchPath(at);
    expect([preview.status, preview.text]).toEqual([200, '<h1>two</h1><link rel=stylesheet href=app.css>']);
    expect(preview.headers.get('cache-control')).toBe('private, no-store');
    expect(preview.headers.get('content-security-policy')).toBe((await page('owner', '')).headers.get('content-security-policy'));
    expect((await fetchPath(`${at}app.css`)).text).toBe('h1{}');
    expect((await fetchPath(at.slice(0, -1))).headers.get('location')).toBe(at);
    expect(await livePage()).toBe('<h1>one</h1>');
    // A token opens only its own canvas, only untampered, and only while its person may manage the canvas.
    const token = at.split('/').at(-2)!;
    expect((await fetchPath(`/c/${w.other.slug}/__easel/draft/${token}/`)).status).toBe(404);
    expect((await fetchPath(at.replace(token, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')))).status).toBe(404);
    expect((await fetchPath(`/c/${w.canvas.slug}/__easel/draft/${w.ids.editor}.zzzzzzzz.forged/`)).status).toBe(404);
    expect((await fetchPath(`/c/${w.canvas.slug}/__easel/draft/`)).status).toBe(404);

    const published = await w.expectOk('POST', draftPath('/publish'), 'editor');
    expect(published).toMatchObject({ outcome: 'published', version: 2, fileCount: 2 });
    expect(await livePage()).toBe('<h1>two</h1><link rel=stylesheet href=app.css>');
    const versions = (await w.expectOk('GET', `/api/canvases/${w.canvas.id}/versions`, 'owner')).versions;
    expect(versions[0]).toMatchObject({ number: 2, source: 'editor', createdBy: w.ids.editor, current: true });
    // The publisher's draft now matches what is live.
    expect(await w.expectOk('GET', draftPath(), 'editor')).toMatchObject({ baseVersion: 2, stale: null, editedCount: 0 });
    // Newest first.
    const audit = (await app().ctx.audit.forCanvas(w.canvas.id)).find((e) => e.action === 'canvas.deploy');
    expect([audit?.actorId, audit?.actorKind]).toEqual([w.ids.editor, 'user']);
  });

  test('a preview address stops working when its person may no longer manage the canvas', async () => {
    await put('editor', 'index.html', '<h1>mine</h1>');
    const at = await previewOf('editor');
    expect((await fetchPath(at)).text).toBe('<h1>mine</h1>');
    await w.expectOk('PUT', `/api/canvases/${w.canvas.id}/members`, 'owner', { email: w.emails.editor, role: 'viewer' });
    expect((await fetchPath(at)).status).toBe(404);
  });

  test('adding, deleting and reverting files; the published version holds exactly the draft', async () => {
    await put('owner', 'notes/new.md', '# new');
    await w.expectOk('DELETE', draftPath('/file?path=app.css'), 'owner');
    let draft = await w.expectOk('GET', draftPath(), 'owner');
    expect(draft.files.map((f: any) => [f.path, f.hash === null, f.edited])).toEqual([
      ['app.css', true, true],
      ['index.html', false, false],
      ['notes/new.md', false, true],
    ]);
    expect((await read('owner', 'app.css')).status).toBe(404);
    expect(await read('owner', 'app.css', 'base')).toEqual({ status: 200, text: 'h1{}' });
    draft = await w.expectOk('POST', draftPath('/revert'), 'owner', { path: 'app.css' });
    expect(draft.editedCount).toBe(1);
    await w.expectOk('DELETE', draftPath('/file?path=app.css'), 'owner');
    // Writing the base's bytes back is no edit at all.
    await put('owner', 'index.html', '<h1>changed</h1>');
    draft = (await body(await put('owner', 'index.html', '<h1>one</h1>'))).draft;
    expect(draft.files.find((f: any) => f.path === 'index.html').edited).toBe(false);

    await w.expectOk('POST', draftPath('/publish'), 'owner');
    const files = (await w.expectOk('GET', `/api/canvases/${w.canvas.id}/files`, 'owner')).files;
    expect(files.map((f: any) => [f.path, f.hash])).toEqual([
      ['index.html', sha256Hex('<h1>one</h1>')],
      ['notes/new.md', sha256Hex('# new')],
    ]);
    expect((await page('viewer', 'notes/new.md')).text).toBe('# new');
  });

  test('a canvas never published: the draft starts empty and its first publish makes it live', async () => {
    const c = await w.newCanvas({ files: undefined });
    const path = `/api/canvases/${c.id}/draft`;
    expect(await w.expectOk('GET', path, 'owner')).toMatchObject({ baseVersion: null, liveVersion: null, files: [] });
    await expectCode(await w.request('owner', `${path}/publish`, { method: 'POST' }), 400, 'EMPTY_DEPLOY');
    await w.request('owner', `${path}/file?path=index.html`, { method: 'PUT', body: '<p>first</p>' });
    const preview = new URL((await w.expectOk('GET', path, 'owner')).previewUrl).pathname;
    expect((await fetchPath(preview)).text).toBe('<p>first</p>');
    expect(await w.expectOk('POST', `${path}/publish`, 'owner')).toMatchObject({ outcome: 'published', version: 1 });
    expect(await w.request('viewer', `/c/${c.slug}/`).then((r) => r.text())).toBe('<p>first</p>');
  });

  test("publishing answers the Deploy API's DeployResult; after an unpublish it brings the canvas back Restricted (spec)", async () => {
    await put('owner', 'index.html', '<h1>back</h1>');
    await w.unpublish(w.canvas);
    // Sharing changed while unpublished does not survive the publish: "Publish after unpublish returns the canvas Restricted".
    await w.expectOk('PATCH', `/api/canvases/${w.canvas.id}`, 'owner', { accessMode: 'whole_org' });
    const published = await w.expectOk('POST', draftPath('/publish'), 'owner');
    expect(Object.keys(published).sort()).toEqual(
      ['fileCount', 'outcome', 'publicationToken', 'releaseId', 'totalBytes', 'url', 'version', 'versionId', 'warnings'].sort(),
    );
    expect(published).toMatchObject({
      outcome: 'published',
      releaseId: null,
      fileCount: 2,
      url: expect.stringContaining(`/c/${w.canvas.slug}/`),
    });
    expect((await w.expectOk('GET', `/api/canvases/${w.canvas.id}`, 'owner')).accessMode).toBe('restricted');
    expect(await livePage()).toBe('<h1>back</h1>');
  });

  test('a pasted canvas key is flagged when written and when published', async () => {
    const key = w.canvas.apiKey;
    const written = await body(await put('owner', 'config.js', `const key = "${key}";`));
    expect(written.warnings).toEqual(['config.js may contain a canvas API key']);
    const published = await w.expectOk('POST', draftPath('/publish'), 'owner');
    expect(published.warnings).toContain('config.js may contain a canvas API key');
  });
});

describe('a deploy syncs unedited drafts and flags edited ones stale', () => {
  test('synced, stale with the changes, publish refused, rebase keeps the edits, then publish', async () => {
    await w.expectOk('GET', draftPath(), 'owner'); // unedited
    await put('editor', 'index.html', '<h1>editor</h1>');
    await w.deploy(w.canvas, { 'index.html': '<h1>from ci</h1>', 'app.css': 'h1{color:red}', 'extra.js': '1' });

    const owner = await w.expectOk('GET', draftPath(), 'owner');
    expect(owner).toMatchObject({ baseVersion: 2, liveVersion: 2, stale: null, editedCount: 0 });
    expect(await read('owner', 'app.css')).toEqual({ status: 200, text: 'h1{color:red}' });

    const editor = await w.expectOk('GET', draftPath(), 'editor');
    expect(editor).toMatchObject({ baseVersion: 1, liveVersion: 2, editedCount: 1 });
    expect(editor.stale).toEqual({
      version: 2,
      changes: [
        { path: 'app.css', change: 'modified', editedInDraft: false },
        { path: 'extra.js', change: 'added', editedInDraft: false },
        { path: 'index.html', change: 'modified', editedInDraft: true },
      ],
    });
    // Never overwritten: the edit and the draft's own base are as they were.
    expect(await read('editor', 'index.html')).toEqual({ status: 200, text: '<h1>editor</h1>' });
    expect(await read('editor', 'index.html', 'base')).toEqual({ status: 200, text: '<h1>one</h1>' });
    expect(await read('editor', 'index.html', 'live')).toEqual({ status: 200, text: '<h1>from ci</h1>' });
    const refused = await expectCode(await w.request('editor', draftPath('/publish'), { method: 'POST' }), 409, 'DRAFT_STALE');
    expect(refused.liveVersion).toBe(2);
    expect(await livePage()).toBe('<h1>from ci</h1>');

    // A second deploy while stale: still stale, now against version 3.
    await w.deploy(w.canvas, { 'index.html': '<h1>from ci again</h1>', 'app.css': 'h1{color:red}', 'extra.js': '1' });
    expect((await w.expectOk('GET', draftPath(), 'editor')).stale.version).toBe(3);

    const rebased = await w.expectOk('POST', draftPath('/rebase'), 'editor');
    expect(rebased).toMatchObject({ baseVersion: 3, stale: null, editedCount: 1 });
    expect(rebased.files.map((f: any) => [f.path, f.edited])).toEqual([
      ['app.css', false],
      ['extra.js', false],
      ['index.html', true],
    ]);
    expect(await read('editor', 'app.css')).toEqual({ status: 200, text: 'h1{color:red}' });
    expect(await read('editor', 'index.html')).toEqual({ status: 200, text: '<h1>editor</h1>' });
    await w.expectOk('POST', draftPath('/publish'), 'editor');
    expect(await livePage()).toBe('<h1>editor</h1>');
    expect((await page('owner', 'extra.js')).text).toBe('1');
    // The owner's unedited draft followed along.
    expect(await w.expectOk('GET', draftPath(), 'owner')).toMatchObject({ baseVersion: 4, stale: null });
  });

  test('already_current runs no side effects: the draft stays as it was; rollback moves only the pointer', async () => {
    const deploy = (releaseId: string) =>
      w.request('owner', `/v1/canvases/${w.canvas.id}/deploy?releaseId=${releaseId}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${w.canvas.apiKey}` },
        body: zipSync({ 'index.html': new TextEncoder().encode('<h1>r1</h1>') }) as Uint8Array<ArrayBuffer>,
      });
    const first = await deploy('r1');
    expect(first.status).toBe(200);
    await put('editor', 'index.html', '<h1>mine</h1>');
    const again = await body(await deploy('r1'));
    expect(again.outcome).toBe('already_current');
    expect((await w.expectOk('GET', draftPath(), 'editor')).stale).toBeNull();
    await w.rollback(w.canvas, 1);
    expect((await w.expectOk('GET', draftPath(), 'editor')).stale).toBeNull();
  });

  test('discard: the next open starts again from the live version', async () => {
    await put('editor', 'index.html', '<h1>mine</h1>');
    expect((await w.request('editor', draftPath(), { method: 'DELETE' })).status).toBe(204);
    expect(await w.expectOk('GET', draftPath(), 'editor')).toMatchObject({ editedCount: 0, baseVersion: 1 });
    expect(await read('editor', 'index.html')).toEqual({ status: 200, text: '<h1>one</h1>' });
  });
});

describe('refusals', () => {
  test('viewers and strangers get 404, guests and canvas keys 401, on every draft route; nothing changes', async () => {
    const before = await w.stored();
    const routes: Array<[string, string, RequestInit?]> = [
      ['GET', draftPath()],
      ['DELETE', draftPath()],
      ['GET', draftPath('/file?path=index.html')],
      ['PUT', draftPath('/file?path=index.html'), { body: 'x' }],
      ['DELETE', draftPath('/file?path=index.html')],
      ['POST', draftPath('/rebase')],
      ['POST', draftPath('/publish')],
    ];
    for (const who of ['viewer', 'stranger', 'guest', 'otherKey'] as const) {
      for (const [method, path, init] of routes) {
        const res = await w.request(who, path, { method, ...init });
        const expected = who === 'viewer' || who === 'stranger' ? { code: 'NOT_FOUND' } : { error: 'unauthorized' };
        expect({ who, method, path, status: res.status, body: await body(res) }).toEqual({
          who,
          method,
          path,
          status: 'code' in expected ? 404 : 401,
          body: 'code' in expected ? { code: 'NOT_FOUND', message: 'canvas not found' } : expected,
        });
      }
    }
    const anon = await w.request('anonymous', draftPath());
    expect(anon.status).toBe(401);
    expect(await w.stored()).toEqual(before);
  });

  test('a refused change makes no draft: revert, delete, rebase and publish need one; reading without one reads the live version', async () => {
    const before = await w.stored();
    await expectCode(await w.request('editor', draftPath('/revert'), { method: 'POST', json: { path: 'index.html' } }), 404, 'NOT_FOUND');
    await expectCode(await w.request('editor', draftPath('/file?path=index.html'), { method: 'DELETE' }), 404, 'NOT_FOUND');
    await expectCode(await w.request('editor', draftPath('/rebase'), { method: 'POST' }), 404, 'NOT_FOUND');
    await expectCode(await w.request('editor', draftPath('/publish'), { method: 'POST' }), 404, 'NOT_FOUND');
    expect(await read('editor', 'index.html', 'base')).toEqual({ status: 200, text: '<h1>one</h1>' });
    await expectCode(await w.request('editor', draftPath('/file?path=nope.html')), 404, 'NOT_FOUND');
    await expectCode(await put('editor', 'big.bin', 'x'.repeat(25 * 1024 * 1024 + 1)), 413, 'FILE_TOO_LARGE');
    expect(await w.stored()).toEqual(before);
  });

  test("a stranger's upload is refused before its body is read (the body never ends)", async () => {
    const endless = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(1024));
      },
    });
    await expectCode(await put('stranger', 'index.html', endless), 404, 'NOT_FOUND');
  });

  test('paths, queries and sizes', async () => {
    await expectCode(await put('owner', '../escape.html', 'x'), 400, 'ZIP_SLIP_REJECTED');
    await expectCode(await put('owner', '.env', 'x'), 400, 'INVALID_PATH');
    await expectCode(await put('owner', 'dir/', 'x'), 400, 'INVALID_PATH');
    await expectCode(await w.request('owner', draftPath('/file')), 400, 'INVALID_BODY');
    const bad = await expectCode(await w.request('owner', draftPath('/file?path=index.html&from=yesterday')), 400, 'INVALID_BODY');
    expect(bad.message).toContain('"draft", "base" or "live"');
    await expectCode(await w.request('owner', draftPath('/file?path=index.html&extra=1')), 400, 'INVALID_BODY');
    await expectCode(await w.request('owner', draftPath('/file?path=missing.html')), 404, 'NOT_FOUND');
    await expectCode(await w.request('owner', draftPath('/revert'), { method: 'POST', json: { path: 'index.html' } }), 404, 'NOT_FOUND');
    const tooBig = await expectCode(await put('owner', 'big.bin', 'x'.repeat(25 * 1024 * 1024 + 1) as string), 413, 'FILE_TOO_LARGE');
    expect(tooBig.path).toBe('big.bin');
    expect((await w.expectOk('GET', draftPath(), 'owner')).files.map((f: any) => f.path)).toEqual(['app.css', 'index.html']);
  });

  test('a publish under a stale expectedPublicationToken is refused like any deploy', async () => {
    await put('owner', 'index.html', '<h1>x</h1>');
    const res = await w.request('owner', draftPath('/publish'), { method: 'POST', json: { expectedPublicationToken: 'stale' } });
    await expectCode(res, 409, 'PUBLICATION_CHANGED');
    expect(await livePage()).toBe('<h1>one</h1>');
  });
});

describe('blobs', () => {
  test("a draft's content and base are kept from collection; a discarded draft's are not", async () => {
    await put('owner', 'solo.txt', 'only in a draft');
    const hash = sha256Hex('only in a draft');
    const gc = app().ctx.blobGc;
    expect(await gc.isReferenced(hash)).toBe(true);
    await w.request('owner', draftPath(), { method: 'DELETE' });
    expect(await gc.isReferenced(hash)).toBe(false);
  });
});

function app() {
  return w.app;
}
