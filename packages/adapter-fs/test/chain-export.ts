/** Exports of long chains of segments, for tests of imports. */

const AT = "2026-01-01T00:00:00.000Z";

/** An export whose `count` segments each continue the one before after its single message. */
export function chainExport(id: string, count: number) {
  const segment = (index: number) => `${id}-s${index}`;
  return {
    $type: "memory",
    $v: 1,
    id,
    createdAt: AT,
    revision: count,
    end: { segment: segment(count - 1), offset: 1 },
    segments: Array.from({ length: count }, (_, index) => ({
      id: segment(index),
      base: index === 0 ? null : { segment: segment(index - 1), offset: 1 },
      start: index,
      createdAt: AT,
      messages: [
        {
          id: `${id}-m${index}`,
          role: "user",
          createdAt: AT,
          contents: [{ type: "text", text: `#${index}` }],
        },
      ],
    })),
  };
}
