// The host page's ticket books (issue 45): one book a line, "red 1–500 #c62828", read into the
// settings' `{"kind":"books","books":[{name, from, to, color}]}` and written back from them.

import { el, replaceChildren } from '../lib/dom.js';
import { t } from '../lib/i18n.js';
import { paint } from '../lib/books.js';

/** Books named after their colour need none given (the colours of common paper raffle books). */
const NAMED = {
  red: '#c62828', blue: '#1565c0', green: '#2e7d32', yellow: '#f9a825', orange: '#ef6c00', purple: '#6a1b9a',
  pink: '#d81b60', white: '#f5f5f5', black: '#212121', grey: '#757575', gray: '#757575', brown: '#6d4c41',
  红: '#c62828', 红色: '#c62828', 蓝: '#1565c0', 蓝色: '#1565c0', 绿: '#2e7d32', 绿色: '#2e7d32', 黄: '#f9a825',
  黄色: '#f9a825', 橙: '#ef6c00', 橙色: '#ef6c00', 紫: '#6a1b9a', 紫色: '#6a1b9a', 粉: '#d81b60', 粉色: '#d81b60',
  白: '#f5f5f5', 白色: '#f5f5f5', 黑: '#212121', 黑色: '#212121', 灰: '#757575', 灰色: '#757575',
};

const LINE = /^(.+?)\s+(\d{1,9})\s*[-–—~～]\s*(\d{1,9})(?:\s+(#[0-9a-fA-F]{6}))?$/u;

/** The books of the text, or { error } naming the first line that is not a book. */
export function parseBooks(text) {
  const books = [];
  for (const raw of String(text).split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const m = LINE.exec(line);
    const color = m && (m[4] ?? NAMED[m[1].toLowerCase()]);
    if (!m || !color || Number(m[2]) > Number(m[3])) return { error: t('host.invalid.books', { line }) };
    books.push({ name: m[1], from: Number(m[2]), to: Number(m[3]), color: color.toLowerCase() });
  }
  return books.length ? { books } : { error: t('host.invalid.books', { line: '' }) };
}

/** The settings' books as the text the host edits. */
export function booksText(books) {
  return (books ?? []).map((b) => `${b.name} ${b.from}–${b.to} ${b.color}`).join('\n');
}

/** Under the text: each book read so far, with its colour and number of tickets. */
export function renderBooksPreview(list, text) {
  const { books } = parseBooks(text);
  if (!books) { replaceChildren(list); return; }
  replaceChildren(list, books.map((b) => paint(el('li', {
    text: t('host.books.item', { name: b.name, from: b.from, to: b.to }),
  }), b.color)));
}
