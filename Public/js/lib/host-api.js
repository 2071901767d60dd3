// The REST calls of the host page's panels (co-hosts, sign-offs, webhooks): one draw's API with the
// page's key as a bearer token and a JSON body. One copy, so each panel sends the key and reads a
// refusal the same way (docs/PROTOCOL.md: errors are `{"error": {"code", "message"}}`).
import { errorText } from './i18n.js';

/**
 * A caller for draw `code`'s API: `call(method, path, body)` fetches `/api/draws/<code>/<path>`
 * with `key()` (the page's key as it is now; null: none) and answers the JSON (`{}` for 204). A
 * refusal throws the server's `error` object; no answer, or one that is not JSON, throws
 * `{ code: 'network' }`.
 */
export function hostApi(code, key) {
  return async (method, path, body) => {
    const hasBody = body !== undefined && body !== null;
    let response;
    try {
      response = await fetch(`/api/draws/${encodeURIComponent(code)}/${path}`, {
        method, cache: 'no-store',
        headers: { Authorization: `Bearer ${key() ?? ''}`, ...(hasBody ? { 'Content-Type': 'application/json' } : {}) },
        body: hasBody ? JSON.stringify(body) : undefined,
      });
    } catch {
      throw { code: 'network' };
    }
    const json = response.status === 204 ? {} : await response.json().catch(() => null);
    if (!response.ok) throw json?.error ?? { code: 'network' };
    return json;
  };
}

/** What a call (or the work around it) threw, in words: the error table's, in the page's language. */
export function apiErrorText(error) {
  return errorText(error?.code ?? 'network');
}
