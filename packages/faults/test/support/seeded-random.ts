/**
 * A small seeded generator (mulberry32), so that the random moments of a failing run can be replayed:
 * tests print their seed, and `FAULTS_SEED=<seed>` runs the same moments again.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `FAULTS_SEED` when set, else a fresh seed. */
export function chooseSeed(): number {
  const given = Number(process.env.FAULTS_SEED);
  return Number.isInteger(given) && given > 0 ? given : Math.floor(Math.random() * 2 ** 31) + 1;
}
