/**
 * Redis compares strings by their bytes (UTF-8 here); skein lists ids in JavaScript's UTF-16 code-unit
 * order, and ids and message ids may hold lone surrogates, which UTF-8 cannot carry. This maps every
 * code unit to one code point, in order — units below U+D800 to themselves, the rest above U+FFFF — so
 * the result is well-formed, byte order equals code-unit order, prefixes stay prefixes, and it reverses.
 * Ids of plain text (most ids) map to themselves.
 */
export function toSortableText(text: string): string {
  let plain = true;
  for (let index = 0; index < text.length && plain; index++) plain = text.charCodeAt(index) < 0xd800;
  if (plain) return text;
  let result = "";
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    result += unit < 0xd800 ? text[index] : String.fromCodePoint(0x10000 + unit - 0xd800);
  }
  return result;
}

/** The inverse of `toSortableText`. */
export function fromSortableText(text: string): string {
  let result = "";
  for (const character of text) {
    const point = character.codePointAt(0) as number;
    result += point < 0xd800 ? character : String.fromCharCode(point - 0x10000 + 0xd800);
  }
  return result;
}

/** Above every byte of UTF-8, so `start + 0xff` bounds every member that begins with `start`. */
export const PAST_EVERY_CHARACTER = Buffer.from([0xff]);
