/** `1 message`, `2 messages`: counts read as people write them. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
