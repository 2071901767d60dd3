// Entrant lists from pasted text or a CSV file, read in the browser. The
// server trims, drops empty lines and de-duplicates again (FAIRNESS §3).

/** Splits text into trimmed, non-empty items (lines by default). */
export function parseList(text, separator = /\r\n|\r|\n/) {
  return String(text ?? '').split(separator).map((s) => s.trim()).filter((s) => s !== '');
}

/** RFC 4180 rows (quoted fields, doubled quotes, CRLF or LF). */
export function csvRows(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  const src = String(text ?? '').replace(/^\uFEFF/, '');
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') {
      quoted = true;
    } else if (c === ',' || c === ';' || c === '\t') {
      row.push(field); field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      row.push(field); rows.push(row); row = []; field = '';
    } else {
      field += c;
    }
  }
  if (field !== '' || row.length) { row.push(field); rows.push(row); }
  return rows;
}

const NAME_HEADERS = ['name', 'names', 'entrant', 'entrants', 'participant', '姓名', '名字', '名称', '参与者'];

/**
 * Names from a CSV file: the column headed "name" (or 姓名 …) when there is
 * such a header row, else the first column. At most 100,000.
 */
export function parseCSV(text) {
  const rows = csvRows(text).filter((r) => r.some((f) => f.trim() !== ''));
  if (!rows.length) return [];
  let column = 0;
  let start = 0;
  const header = rows[0].map((h) => h.trim().toLowerCase());
  const named = header.findIndex((h) => NAME_HEADERS.includes(h));
  if (named >= 0) { column = named; start = 1; }
  return rows.slice(start).map((r) => (r[column] ?? '').trim()).filter((s) => s !== '').slice(0, 100000);
}

/**
 * How many entrants pasted text lists before Preview: its lines, less a spreadsheet's header
 * row ("name<TAB>tickets<TAB>group"), which names no one.
 */
export function countEntrants(text) {
  const lines = parseList(text);
  if (!lines.length) return 0;
  const first = lines[0].split(/[\t,;]/).map((h) => h.trim().toLowerCase());
  return first.length > 1 && first.some((h) => NAME_HEADERS.includes(h)) ? lines.length - 1 : lines.length;
}

/** Group names typed as "IT, Sales; 研发": split at commas/semicolons, trimmed, distinct. */
export function groupList(text) {
  return [...new Set(parseList(text, /[,;，；]/))];
}
