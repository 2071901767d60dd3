// Ticket books (docs/FAIRNESS.md §3, "Ticket books"): a pool of named, coloured ranges such as
// `red 1–500, blue 1–500`, drawn as the tickets "red 1" … "blue 500". Pages show every ticket
// with its book's colour: a swatch before the text (`tint`), the wheel's slices, the names field.
// The colours come from the settings the record hashes, so what a page paints is on the record.

/** The draw's books for this page ([] for another pool); set from the settings by room.js. */
let current = [];
let byName = new Map();

export function setBooks(books) {
  if (books === current) return;
  current = Array.isArray(books) ? books : [];
  byName = new Map(current.map((b) => [b.name, b]));
}

export function currentBooks() {
  return current;
}

/** Every ticket of the books, book after book (as the server numbers them). */
export function bookTickets(books) {
  const out = [];
  for (const b of books ?? []) for (let n = b.from; n <= b.to; n += 1) out.push(`${b.name} ${n}`);
  return out;
}

/** The book a ticket ("blue 217") belongs to, or null (another pool, or not a ticket of its books). */
export function bookOf(value) {
  if (typeof value !== 'string' || !byName.size) return null;
  const at = value.lastIndexOf(' ');
  if (at <= 0) return null;
  const book = byName.get(value.slice(0, at));
  const digits = value.slice(at + 1);
  if (!book || !/^\d+$/.test(digits)) return null;
  const n = Number(digits);
  return n >= book.from && n <= book.to && String(n) === digits ? book : null;
}

/** The colour of a ticket's book, or null. */
export function bookColor(value) {
  return bookOf(value)?.color ?? null;
}

/** Text (black or white) that reads on `color` (#rrggbb), by its relative luminance. */
export function inkOn(color) {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(color.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.22 ? '#111111' : '#ffffff';
}

/**
 * Marks `node` as showing `value`: a ticket of a book gets the book's colour as a swatch before
 * its text (class `book-tint`, css `--book`); anything else loses it.
 */
export function tint(node, value) {
  return paint(node, bookColor(value));
}

/** `node` with a swatch of `color` (#rrggbb) before its text, or without one (null). */
export function paint(node, color) {
  if (!node) return node;
  node.classList.toggle('book-tint', Boolean(color));
  if (color) node.style.setProperty('--book', color);
  else node.style.removeProperty('--book');
  return node;
}
