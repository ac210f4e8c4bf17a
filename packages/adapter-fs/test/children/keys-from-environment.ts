// The keys a child process opens its store with: `id=hex` pairs in SKEIN_TEST_KEYS, the first one current.
// Without the variable the store stays clear, so a child that imports this behaves as before for clear tests.
import type { EncryptionOptions } from "@skein/thread-core/driver";

/** The encryption the parent asked for through SKEIN_TEST_KEYS, or undefined for a clear store. */
export function encryptionFromEnvironment(): EncryptionOptions | undefined {
  const listed = process.env.SKEIN_TEST_KEYS;
  if (!listed) return undefined;
  const pairs = listed.split(",").map((pair) => pair.split("=") as [string, string]);
  const keys = Object.fromEntries(pairs.map(([id, hex]) => [id, Buffer.from(hex, "hex")]));
  return { keys, current: pairs[0]?.[0] as string };
}
