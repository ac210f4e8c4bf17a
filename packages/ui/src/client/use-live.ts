import { useEffect, useState } from "preact/hooks";
import { getJson } from "./api-client.js";
import type { ThreadRef } from "./thread-ref.js";

/**
 * The thread's change signature, checked every `interval` ms: one request at a time, none while the tab
 * is hidden, and slower after failures, so an open page costs the store a small, fixed rate of reads.
 */
export function useLiveSignature(
  thread: ThreadRef,
  initial: string | undefined,
  interval: number,
): string | undefined {
  const [signature, setSignature] = useState(initial);
  useEffect(() => setSignature(initial), [initial]);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay = interval;
    const check = async () => {
      if (stopped) return;
      if (!document.hidden) {
        try {
          const result = await getJson<{ signature: string }>("/api/live", { ...thread });
          if (!stopped) setSignature(result.signature);
          delay = interval;
        } catch {
          delay = Math.min(delay * 2, 30_000);
        }
      }
      if (!stopped) timer = setTimeout(check, delay);
    };
    timer = setTimeout(check, delay);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [thread.id, thread.scope, thread.sub, interval]);
  return signature;
}
