import { randomBytes } from "node:crypto";
import { InvalidThreadIdError } from "./errors.js";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
let lastTime = -1;
let lastTimeText = "";
let lastRandom: number[] = [];

/**
 * Random bytes drawn from the operating system 4 KiB at a time (as `crypto.randomUUID` does): at thousands
 * of ids a second, one system call per id was the largest cost of making one.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomDigits(count: number): number[] {
  if (poolOffset + count > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const digits = new Array<number>(count);
  for (let index = 0; index < count; index++) digits[index] = (pool[poolOffset + index] as number) & 31;
  poolOffset += count;
  return digits;
}

/**
 * A ULID: 26 characters that sort in creation order, monotonic within a millisecond in one process.
 * @example newSortableId() // "01JD8X3Q4V6Y9Z0B1C2D3E4F5G"
 */
export function newSortableId(now = Date.now()): string {
  if (now <= lastTime) {
    incrementRandom(lastRandom);
  } else {
    lastTime = now;
    lastRandom = randomDigits(16);
    let time = "";
    let remaining = now;
    for (let index = 0; index < 10; index++) {
      time = CROCKFORD[remaining % 32] + time;
      remaining = Math.floor(remaining / 32);
    }
    lastTimeText = time;
  }
  let id = lastTimeText;
  for (const digit of lastRandom) id += CROCKFORD[digit];
  return id;
}

function incrementRandom(digits: number[]): void {
  for (let index = digits.length - 1; index >= 0; index--) {
    if ((digits[index] as number) < 31) {
      digits[index] = (digits[index] as number) + 1;
      return;
    }
    digits[index] = 0;
  }
}

/** A random id with a readable prefix, for segments and checkpoints. */
export function newRandomId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("base64url")}`;
}

/** The longest thread id, in characters. */
export const MAX_THREAD_ID_LENGTH = 256;
// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Throws `InvalidThreadIdError` unless `id` is 1–256 characters with no control characters. */
export function assertThreadId(id: unknown): asserts id is string {
  if (typeof id !== "string") throw new InvalidThreadIdError(`expected a string, got ${typeof id}`);
  const length = [...id].length;
  if (length === 0) throw new InvalidThreadIdError("it is empty");
  if (length > MAX_THREAD_ID_LENGTH) throw new InvalidThreadIdError(`it has ${length} characters`);
  if (CONTROL.test(id)) throw new InvalidThreadIdError("it contains a control character");
  if (LONE_SURROGATE.test(id)) throw new InvalidThreadIdError("it contains a lone surrogate");
}
