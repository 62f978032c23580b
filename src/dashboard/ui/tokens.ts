// The dashboard's Tokens section: personal access tokens for scripts and
// agents (create, shown once with a ready MCP configuration; list; revoke).
// app.js starts it once the person is signed in, lending its helpers.
// @ts-nocheck -- moved from plain JS; typed file by file next
export const easelTokens = {
  start({ api, notice, problem, cell }) {
    const $ = (id) => document.getElementById(id);

    async function load() {
      const res = await api('GET', '/api/tokens');
      if (res.status !== 200) {
        notice(`Could not list tokens: ${problem(res)}`);
        return;
      }
      const tbody = $('token-list').querySelector('tbody');
      tbody.replaceChildren();
      for (const token of res.data.tokens) {
        const row = document.createElement('tr');
        cell(row, token.name);
        cell(row, new Date(token.createdAt).toLocaleString());
        cell(row, token.lastUsedAt ? new Date(token.lastUsedAt).toLocaleString() : 'never');
        cell(row, token.expiresAt ? new Date(token.expiresAt).toLocaleString() : 'never');
        const actions = document.createElement('td');
        const revoke = document.createElement('button');
        revoke.type = 'button';
        revoke.className = 'revoke-token';
        revoke.textContent = 'Revoke';
        revoke.addEventListener('click', async () => {
          if (!confirm(`Revoke "${token.name}"? Whatever uses it stops working at once.`)) return;
          const gone = await api('DELETE', `/api/tokens/${encodeURIComponent(token.id)}`);
          if (gone.status !== 200) notice(`Could not revoke: ${problem(gone)}`);
          await load();
        });
        actions.append(revoke);
        row.append(actions);
        tbody.append(row);
      }
      $('token-list').hidden = res.data.tokens.length === 0;
      $('token-none').hidden = res.data.tokens.length > 0;
      $('token-list').dataset.ready = 'true';
    }

    function showCreated(created) {
      $('token-value').textContent = created.token;
      const config = {
        mcpServers: { easel: { type: 'http', url: `${location.origin}/mcp`, headers: { Authorization: `Bearer ${created.token}` } } },
      };
      $('token-mcp').textContent = JSON.stringify(config, null, 2);
      $('token-created').hidden = false;
    }

    $('copy-token').addEventListener('click', () => navigator.clipboard?.writeText($('token-value').textContent));
    $('token-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const form = event.currentTarget;
      const name = form.elements.namedItem('name').value.trim();
      const days = Number(form.elements.namedItem('days').value);
      const body = days > 0 ? { name, expiresAt: Date.now() + days * 86_400_000 } : { name };
      const res = await api('POST', '/api/tokens', body);
      if (res.status !== 201) {
        notice(`Could not create the token: ${problem(res)}`);
        return;
      }
      notice('');
      showCreated(res.data);
      form.reset();
      await load();
    });
    $('tokens').hidden = false;
    return load();
  },
};
