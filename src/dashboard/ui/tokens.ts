// The dashboard's Tokens section: personal access tokens for scripts and
// agents (create, shown once with a ready MCP configuration; list; revoke).
// app.ts starts it once the person is signed in, lending its API client.
import { byId, field } from './elements.ts';
import { cell, type Deps, emptyBody, toast } from './ui.ts';

/** One token of GET /api/tokens (never its secret). */
interface TokenInfo {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
}

/** POST /api/tokens: the secret, this once. */
interface CreatedToken {
  id: string;
  token: string;
}

const at = (ms: number | null) => (ms ? new Date(ms).toLocaleString() : 'never');

export function startTokens({ api, problem }: Pick<Deps, 'api' | 'problem'>): Promise<void> {
  const list = byId('token-list');
  /** The token whose secret is on show (showCreated), until it is revoked. */
  let shownId: string | null = null;

  async function load(): Promise<void> {
    const res = await api<{ tokens: TokenInfo[] }>('GET', '/api/tokens');
    if (res.status !== 200) {
      toast(`Could not list tokens: ${problem(res)}`, 'error', 'tokens');
      return;
    }
    const tbody = emptyBody(list);
    for (const token of res.data.tokens) {
      const row = document.createElement('tr');
      cell(row, token.name);
      cell(row, new Date(token.createdAt).toLocaleString());
      cell(row, at(token.lastUsedAt));
      cell(row, at(token.expiresAt));
      const actions = document.createElement('td');
      const revoke = document.createElement('button');
      revoke.type = 'button';
      revoke.className = 'revoke-token';
      revoke.textContent = 'Revoke';
      revoke.addEventListener('click', async () => {
        if (!confirm(`Revoke "${token.name}"? Whatever uses it stops working at once.`)) return;
        const gone = await api('DELETE', `/api/tokens/${encodeURIComponent(token.id)}`);
        if (gone.status !== 200) toast(`Could not revoke "${token.name}": ${problem(gone)}`, 'error', 'tokens');
        else {
          toast(`Token "${token.name}" revoked.`, 'done', 'tokens');
          // A revoked secret left on show would be copied into a script that can no longer sign in.
          if (token.id === shownId) hideCreated();
        }
        await load();
      });
      actions.append(revoke);
      row.append(actions);
      tbody.append(row);
    }
    list.hidden = res.data.tokens.length === 0;
    byId('token-none').hidden = res.data.tokens.length > 0;
    list.dataset.ready = 'true';
  }

  function hideCreated(): void {
    shownId = null;
    byId('token-created').hidden = true;
    byId('token-value').textContent = '';
    byId('token-mcp').textContent = '';
  }

  function showCreated(created: CreatedToken): void {
    shownId = created.id;
    byId('token-value').textContent = created.token;
    const config = {
      mcpServers: { easel: { type: 'http', url: `${location.origin}/mcp`, headers: { Authorization: `Bearer ${created.token}` } } },
    };
    byId('token-mcp').textContent = JSON.stringify(config, null, 2);
    byId('token-created').hidden = false;
  }

  byId('copy-token').addEventListener('click', () => {
    void navigator.clipboard?.writeText(byId('token-value').textContent ?? '').then(() => toast('Token copied.', 'done', 'copy'));
  });
  const form = byId('token-form', HTMLFormElement);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = field(form, 'name').value.trim();
    const days = Number(field(form, 'days').value);
    const body = days > 0 ? { name, expiresAt: Date.now() + days * 86_400_000 } : { name };
    const res = await api<CreatedToken>('POST', '/api/tokens', body);
    if (res.status !== 201) {
      toast(`Could not create the token: ${problem(res)}`, 'error', 'tokens');
      return;
    }
    toast(`Token "${name}" created: copy it now, it is shown only this once.`, 'done', 'tokens');
    showCreated(res.data);
    form.reset();
    await load();
  });
  byId('tokens').hidden = false;
  return load();
}
