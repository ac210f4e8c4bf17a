import { useState } from "preact/hooks";

interface WindowBarProps {
  /** Which messages are on screen, in words. */
  summary: string;
  /** A workflow's side-by-side sub-thread: no jump field. */
  compact: boolean;
  /** Go to a position (0-based). */
  onJump: (position: number) => void;
  onFirst: () => void;
  onNewest: () => void;
}

/** The bar above a message window: what it shows, a jump to a message number, first and newest. */
export function WindowBar({ summary, compact, onJump, onFirst, onNewest }: WindowBarProps) {
  const [jump, setJump] = useState("");
  return (
    <div class="window-bar">
      <span class="muted">{summary}</span>
      {compact ? null : (
        <form
          class="jump"
          onSubmit={(event) => {
            event.preventDefault();
            const position = Number(jump);
            if (Number.isSafeInteger(position) && position > 0) onJump(position - 1);
          }}
        >
          <input
            aria-label="go to message number"
            placeholder="#"
            value={jump}
            onInput={(event) => setJump((event.target as HTMLInputElement).value)}
          />
          <button type="submit">go</button>
        </form>
      )}
      <button type="button" onClick={onFirst}>
        first
      </button>
      <button type="button" onClick={onNewest}>
        newest
      </button>
    </div>
  );
}
