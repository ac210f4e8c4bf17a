/**
 * Whether `value` carries `marker`, a `Symbol.for` symbol a class sets on its instances: what the classes'
 * `isInstance` reads, so it holds across duplicate installs of a package, unlike `instanceof`.
 */
export function carriesMarker(value: unknown, marker: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}
