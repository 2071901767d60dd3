// GET /api/info → {"defaultDraw":"CODE","lanUrl":"http://…"}: the server's
// address as phones on the LAN reach it (pages opened on localhost need it for
// links and QR codes). Null when the endpoint is missing.

let pending = null;

export function serverInfo() {
  if (!pending) {
    pending = fetch('/api/info', { cache: 'no-store' })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null);
  }
  return pending;
}

/** The LAN base URL without a trailing slash, or location.origin. */
export async function lanBase() {
  const info = await serverInfo();
  const url = typeof info?.lanUrl === 'string' ? info.lanUrl : null;
  if (!url || !/^https?:\/\//.test(url)) return location.origin;
  return url.replace(/\/+$/, '');
}
