// "Exclude the winners of other draws" (excludeWinnersOf, PROTOCOL.md "configure"): one line
// per draw, either its host link (…/draw/CODE#key=KEY) or its code and host key. A draw already
// linked may stay as its code alone; the server checks each new key and never sends keys back.

const LINK = /\/draw\/([A-Za-z0-9_-]{1,32})[^#\s]*#(?:.*&)?key=([^&\s]+)/;

/** The lines as `excludeWinnersOf` entries: `{code, key}` or a bare code. */
export function readPastDraws(text) {
  const out = [];
  for (const raw of String(text ?? '').split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const link = LINK.exec(line);
    if (link) { out.push({ code: link[1], key: decodeURIComponent(link[2]) }); continue; }
    const [code, key] = line.split(/[\s,;]+/);
    out.push(key ? { code, key } : code);
  }
  return out;
}

/** The linked draws of `config`, one code per line. */
export function pastDrawsText(config) {
  return Array.isArray(config?.excludeWinnersOf) ? config.excludeWinnersOf.join('\n') : '';
}
