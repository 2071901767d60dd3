// The admin's REST calls (docs/openapi.yaml, tag admin). Each resolves to
// { ok, body, code } where code is the error code when not ok.

async function call(method, path, key) {
  try {
    const response = await fetch(path, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: method === 'POST' ? '{}' : undefined,
      cache: 'no-store',
    });
    const body = await response.json().catch(() => null);
    if (response.ok && body) return { ok: true, body, code: null };
    return { ok: false, body, code: body?.error?.code ?? 'network' };
  } catch {
    return { ok: false, body: null, code: 'network' };
  }
}

export function listDraws(key, after = null) {
  const query = after ? `?after=${encodeURIComponent(after)}` : '';
  return call('GET', `/api/draws${query}`, key);
}

export function setArchived(key, code, archived) {
  return call('POST', `/api/draws/${encodeURIComponent(code)}/${archived ? 'archive' : 'unarchive'}`, key);
}

export function deleteDraw(key, code) {
  return call('DELETE', `/api/draws/${encodeURIComponent(code)}`, key);
}

/** The admin key from a `#admin=…` link (the fragment never reaches the server), or null. */
export function adminKeyFromFragment(hash) {
  const match = /^#admin=([\x21-\x7e]{1,256})$/.exec(hash ?? '');
  return match ? decodeURIComponent(match[1]) : null;
}
