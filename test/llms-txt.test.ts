// passes: embedded — a generated document, the same on every storage
// GET /llms.txt (issue 17 item 3): what an agent needs to publish here, for anyone, naming this instance.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from './harness.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_BASE_URL: 'https://easel.example.com', EASEL_API_BASE_URL: 'https://api.easel.example.com' } });
});
afterAll(() => app.close());

test('plain text without sign-in: this instance’s MCP endpoint, token route, Deploy API, SDK types and limits', async () => {
  const res = await app.request('/llms.txt');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  const text = await res.text();
  for (const needle of [
    'POST https://easel.example.com/mcp',
    'https://easel.example.com/api/tokens',
    'curl -X PUT https://api.easel.example.com/v1/canvases/{id}/deploy',
    'https://easel.example.com/sdk/v1.d.ts',
    '"Authorization": "Bearer easel_pat_..."',
    'deploy_canvas {canvasId, files: [{path, content, encoding: "utf8"|"base64"}]',
    '2000 files',
    '10 deploys a minute per canvas',
  ]) {
    expect(text).toContain(needle);
  }
  // Every tool the server offers is named.
  const { easelTools } = await import('../src/mcp/tools.ts');
  for (const tool of easelTools({
    ctx: app.ctx,
    canvases: app.features.canvasService,
    deploy: app.features.deploy,
    data: app.features.data,
  }))
    expect(text).toContain(tool.name);
});
