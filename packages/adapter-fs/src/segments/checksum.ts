import * as zlib from "node:zlib";

let table: Uint32Array | undefined;

/**
 * CRC-32 of `bytes`, to tell a whole record from a torn or damaged one. Uses `zlib.crc32` where Node.js has
 * it (20.15 and later) and the same polynomial in JavaScript before that.
 */
export function checksum(bytes: Uint8Array): number {
  const native = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
  if (native) return native(bytes);
  table ??= buildTable();
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (table[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function buildTable(): Uint32Array {
  const result = new Uint32Array(256);
  for (let index = 0; index < 256; index++) {
    let value = index;
    for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    result[index] = value >>> 0;
  }
  return result;
}
