/**
 * Ids as the tables keep them: the UTF-16 code units, big-endian, in `bytea`. Byte order is then code-unit
 * order (what `list` promises; UTF-8 text would sort U+FFFF after an emoji), and any JavaScript string,
 * NUL and lone surrogates included, is stored exactly (`text` takes neither).
 */
export function idKey(id: string): Buffer {
  return Buffer.from(id, "utf16le").swap16();
}

export function idFromKey(key: Buffer): string {
  return Buffer.from(key).swap16().toString("utf16le");
}

/** The least key above every key that starts with `prefix`, or undefined when there is none. */
export function prefixEnd(prefix: string): Buffer | undefined {
  const units = [...Array(prefix.length)].map((_, index) => prefix.charCodeAt(index));
  while (units.length > 0 && units[units.length - 1] === 0xffff) units.pop();
  if (units.length === 0) return undefined;
  units[units.length - 1] = (units[units.length - 1] as number) + 1;
  return idKey(String.fromCharCode(...units));
}
