import { MessageNotFoundError, MessageOffBranchError, NotAnAnswerError } from "../branch-errors.js";
import { ConcurrencyError, ConflictError, InvalidOptionError, SkeinError } from "../errors.js";
import { type Message, messageConflict, messageText } from "../message.js";
import { describeGiven } from "../option-value.js";
import type { Alternative, BranchChange, HistoryEvent, LogPoint } from "../thread.js";
import { branchHistory, type SpotVersions } from "./branch-index.js";
import {
  chainHasSpot,
  type Slot,
  sameVersion,
  slotAt,
  slotBefore,
  type Version,
  type VersionSpot,
} from "./branch-versions.js";
import type { AppliedOperation, CommitResult, LogChange, LogDriver, LogRecord } from "./log-driver.js";
import { newHeadSegment } from "./log-driver.js";
import { eventPoints } from "./log-state.js";
import { type ChainRange, SegmentChains } from "./segment-chain.js";

/** What the branch operations need of the thread they work on. */
export interface BranchAccess {
  readonly threadId: string;
  /** The store's driver and segment chains (the thread's `LocalThreadHost`). */
  readonly host: { readonly driver: LogDriver; readonly chains: SegmentChains };
  /** The messages of the log as `record` ends it. */
  chainOf(record: LogRecord): Promise<ChainRange[]>;
  commit(change: LogChange): Promise<CommitResult>;
  /** The `operations` part of a change made under an operation id (nothing without one). */
  operationChange(
    record: LogRecord,
    operationId: string | undefined,
    end: AppliedOperation["end"],
    messages: Message[],
  ): Pick<LogChange, "operations">;
}

/** An edit or regenerate as the thread asks for it. */
export interface VersionRequest {
  reason: "edit" | "regenerate";
  messageId: string;
  /** The new version (regenerate: the reply), absent for a regenerate that waits for a later append. */
  replacement?: Message;
  /** Messages that follow the new version on its branch, written in the same change. */
  follow?: Message[];
}

/** A message's spot on the current branch, the message there now, and the stored version named. */
interface Located extends VersionSpot {
  ranges: ChainRange[];
  current: Message | undefined;
  /** Where the current message at the spot is stored. */
  currentSlot: Slot | undefined;
  /** The versions the history recorded at the spot. */
  recorded: SpotVersions;
  /** Whether the message named is the one at the spot on the current branch. */
  onBranch: boolean;
}

const PREVIEW_LENGTH = 120;

/**
 * Edit, regenerate and switchTo as rollbacks that record which version of a message they left and entered:
 * each starts a new head segment on an existing prefix (O(1) in the thread's length, nothing copied), and
 * `alternatives` reads the versions recorded at one position, one read per version.
 */
export class ThreadBranches {
  constructor(private readonly access: BranchAccess) {}

  /** Runs an edit or regenerate on `record`, pinned to `ifRevision`; resolves to what it appended. */
  async change(
    record: LogRecord,
    request: VersionRequest,
    ifRevision: number,
    operationId: string | undefined,
  ): Promise<Message[]> {
    this.#checkRevision(record, ifRevision);
    const spot = await this.#locate(record, request.messageId);
    const { replacement } = request;
    const named = spot.onBranch ? spot.current : await this.#versionMessage(spot, request.messageId);
    if (request.reason === "regenerate" && named && named.role !== "assistant") {
      throw new NotAnAnswerError(this.access.threadId, request.messageId, named.role, this.#source);
    }
    const done = await this.#alreadyDone(spot, request);
    if (done) return this.#settled(record, done, ifRevision, operationId);
    const append = replacement ? [replacement, ...(request.follow ?? [])] : [];
    if (replacement) await this.#checkFreeIds(spot, append, request.messageId);
    const to = this.access.host.chains.pointAt(spot.ranges, spot.position);
    const newHead = newHeadSegment(this.access.host.driver, this.access.threadId, to, spot.position);
    const end = { segment: newHead.id, offset: append.length, position: spot.position + append.length };
    const result = await this.access.commit({
      expectHead: record.head,
      ifRevision,
      newHead,
      ...(append.length > 0 ? { append } : {}),
      event: this.#event(request.messageId, to, to, {
        reason: request.reason,
        ...this.#spotFields(spot),
        ...(replacement ? { entered: replacement.id, enteredAt: { segment: newHead.id, offset: 0 } } : {}),
        end,
      }),
      ...this.access.operationChange(record, operationId, end, append),
    });
    return result.messages;
  }

  /** Makes the branch of version `alternativeId` current; resolves to that version, as stored. */
  async switchTo(
    record: LogRecord,
    alternativeId: string,
    index: number | undefined,
    ifRevision: number,
    operationId: string | undefined,
  ): Promise<Message[]> {
    this.#checkRevision(record, ifRevision);
    const spot = await this.#locate(record, alternativeId);
    const target = this.#target(spot, alternativeId, index);
    if (sameVersion(target.slot, spot.currentSlot)) {
      return this.#settled(record, [spot.current as Message], ifRevision, operationId);
    }
    const stored = spot.recorded.end(target.slot) as LogPoint;
    const ranges = await this.access.host.chains.chain(stored.segment, stored.offset);
    const message = await this.#messageAt(ranges, spot.position, target);
    // Based on the segment holding the branch's last message, so switching back and forth never stacks
    // empty heads into a longer chain.
    const end = this.access.host.chains.pointAt(ranges, SegmentChains.length(ranges));
    const newHead = newHeadSegment(this.access.host.driver, this.access.threadId, end, end.position);
    await this.access.commit({
      expectHead: record.head,
      ifRevision,
      newHead,
      event: this.#event(alternativeId, end, end, {
        reason: "switch",
        ...this.#spotFields(spot),
        entered: alternativeId,
        enteredAt: target.slot,
        end,
      }),
      ...this.access.operationChange(record, operationId, { segment: newHead.id, offset: 0 }, [message]),
    });
    return [message];
  }

  /** The versions at the spot of `messageId` (on the current branch, or a version at a spot on it). */
  async alternatives(record: LogRecord, messageId: string): Promise<Alternative[]> {
    const spot = await this.#locate(record, messageId);
    const chains = this.access.host.chains;
    return Promise.all(
      this.#versions(spot).map(async (version, index) => {
        if (sameVersion(version.slot, spot.currentSlot)) {
          const length = SegmentChains.length(spot.ranges);
          return describe(spot.current as Message, index, true, chains.pointAt(spot.ranges, length));
        }
        // The end as history recorded it, so `at(end)` and `fork({ at: end })` take it as a known point.
        const stored = spot.recorded.end(version.slot) as LogPoint;
        const ranges = await chains.chain(stored.segment, stored.offset);
        return describe(await this.#messageAt(ranges, spot.position, version), index, false, stored);
      }),
    );
  }

  /** The spot's versions, the current one included even when no version change recorded it (a plain append). */
  #versions(spot: Located): readonly Version[] {
    const unrecorded = this.#unrecorded(spot);
    return unrecorded ? [...spot.recorded.list(), unrecorded] : spot.recorded.list();
  }

  /** The current version when no version change recorded it (a plain append): the spot's last version. */
  #unrecorded(spot: Located): Version | undefined {
    const { current, currentSlot } = spot;
    if (!current || !currentSlot || spot.recorded.end(currentSlot) !== undefined) return undefined;
    return { id: current.id, slot: currentSlot };
  }

  /**
   * The version `switchTo` names: by index when given (it must carry the id), else the newest version with
   * the id that is not current (edits that kept a message's id share it), else the current one.
   */
  #target(spot: Located, alternativeId: string, index: number | undefined): Version {
    const { recorded } = spot;
    const unrecorded = this.#unrecorded(spot);
    if (index !== undefined) {
      const chosen = recorded.version(index) ?? (index === recorded.count ? unrecorded : undefined);
      if (chosen?.id === alternativeId) return chosen;
      const indexes = this.#versions(spot).flatMap((version, at) =>
        version.id === alternativeId ? [at] : [],
      );
      throw new InvalidOptionError(
        "thread.switchTo",
        "index",
        `the index of a version with id ${JSON.stringify(alternativeId)} in thread.alternatives(): ${indexes.join(" or ")}`,
        describeGiven(index),
      );
    }
    // Read by id, not by walking the versions: O(1) however many versions the spot has.
    return (recorded.newest(alternativeId, spot.currentSlot) ??
      recorded.first(alternativeId) ??
      (unrecorded?.id === alternativeId ? unrecorded : undefined)) as Version;
  }

  get #source() {
    return { source: this.access.host.driver.source };
  }

  #checkRevision(record: LogRecord, ifRevision: number): void {
    if (record.revision !== ifRevision) {
      throw new ConcurrencyError(this.access.threadId, ifRevision, record.revision, this.#source);
    }
  }

  #spotFields(spot: Located): Pick<BranchChange, "position" | "after" | "left" | "leftAt"> {
    return {
      position: spot.position,
      after: spot.after,
      ...(spot.current && spot.currentSlot ? { left: spot.current.id, leftAt: spot.currentSlot } : {}),
    };
  }

  /** A rollback event carrying the version change; the driver fills `from` with the end it left. */
  #event(target: string, from: LogPoint, to: LogPoint, branch: BranchChange): HistoryEvent {
    return { kind: "rollback", from, to, target, at: new Date().toISOString(), revision: 0, branch };
  }

  /**
   * The spot of a message: where it is on the current branch, else the newest spot on the current branch
   * where it is a recorded version. Anything else is a `MessageOffBranchError` when the message lies on a
   * branch the history keeps, else a `MessageNotFoundError`.
   */
  async #locate(record: LogRecord, messageId: string): Promise<Located> {
    const chains = this.access.host.chains;
    const ranges = await this.access.chainOf(record);
    const found = await chains.locate(ranges, messageId);
    let spot: VersionSpot | undefined = found && {
      position: found.position,
      after: slotBefore(ranges, found.position),
    };
    const history = branchHistory(record.events);
    if (!spot) spot = history.findSpot(messageId, (candidate) => chainHasSpot(ranges, candidate));
    if (!spot) throw await this.#missing(record, messageId);
    const length = SegmentChains.length(ranges);
    const current =
      spot.position < length ? (await chains.read(ranges, spot.position, spot.position + 1))[0] : undefined;
    return {
      ...spot,
      ranges,
      current,
      currentSlot: current && slotAt(ranges, spot.position),
      recorded: history.at(spot),
      onBranch: found !== undefined,
    };
  }

  /** The newest stored version `messageId` at a spot, read from the branch behind it. */
  async #versionMessage(spot: Located, messageId: string): Promise<Message> {
    // Off the current branch, so not the current version: the newest recorded one with the id.
    const version = spot.recorded.newest(messageId) as Version;
    const stored = spot.recorded.end(version.slot) as LogPoint;
    const ranges = await this.access.host.chains.chain(stored.segment, stored.offset);
    return this.#messageAt(ranges, spot.position, version);
  }

  async #messageAt(ranges: ChainRange[], position: number, version: Version): Promise<Message> {
    const [message] =
      position < SegmentChains.length(ranges)
        ? await this.access.host.chains.read(ranges, position, position + 1)
        : [];
    if (message?.id !== version.id || !sameVersion(slotAt(ranges, position), version.slot)) {
      throw new SkeinError(
        `Version ${JSON.stringify(version.id)} of thread ${JSON.stringify(this.access.threadId)} is not where its history puts it: the store is damaged.`,
        this.#source,
      );
    }
    return message;
  }

  /**
   * The messages a retry of this change would have written, when the thread already holds them as it left
   * it: the replacement at the spot (compared: other content under its id is a `ConflictError`), or, for a
   * regenerate without reply, an empty spot the last change there made by leaving this message.
   */
  async #alreadyDone(spot: Located, request: VersionRequest): Promise<Message[] | undefined> {
    const { replacement } = request;
    if (replacement) {
      if (spot.current?.id !== replacement.id) return undefined;
      // Other content under the id of the message edited is a new version of it (an edit that keeps the id);
      // under another id it is a conflict, as for an append.
      const changed = messageConflict(spot.current, replacement, this.access.host.driver.source);
      if (changed && replacement.id === request.messageId) return undefined;
      const written = [replacement, ...(request.follow ?? [])];
      const end = Math.min(SegmentChains.length(spot.ranges), spot.position + written.length);
      const held = await this.access.host.chains.read(spot.ranges, spot.position, end);
      // Compared message by message: a retry finds what it wrote; other content under those ids is a conflict.
      for (const [index, message] of written.entries()) {
        const stored = held[index];
        const conflict =
          stored === undefined || stored.id !== message.id
            ? new ConflictError(
                `The thread holds version ${JSON.stringify(replacement.id)} already, followed by other messages than these; nothing was written.`,
                message.id,
                this.#source,
              )
            : messageConflict(stored, message, this.access.host.driver.source);
        if (conflict) throw conflict;
      }
      return held;
    }
    const last = spot.recorded.last;
    const unanswered = spot.current === undefined && last?.branch.reason === "regenerate";
    return unanswered && last?.branch.left === request.messageId && !spot.onBranch ? [] : undefined;
  }

  /**
   * A retry found done: nothing to write, but a caller's operation id is recorded, by a commit that changes
   * nothing else and is pinned to the revision read.
   */
  async #settled(
    record: LogRecord,
    messages: Message[],
    ifRevision: number,
    operationId: string | undefined,
  ): Promise<Message[]> {
    if (operationId === undefined) return messages;
    const ranges = await this.access.chainOf(record);
    const end = this.access.host.chains.pointAt(ranges, SegmentChains.length(ranges));
    await this.access.commit({
      expectHead: record.head,
      ifRevision,
      ...this.access.operationChange(record, operationId, end, messages),
    });
    return messages;
  }

  /**
   * The new version's id is neither an earlier message's nor another version's at the spot, and the ids of the
   * messages written with it come once and are not earlier in the thread.
   */
  async #checkFreeIds(spot: Located, messages: Message[], edited: string): Promise<void> {
    const seen = new Set<string>();
    const unrecorded = this.#unrecorded(spot);
    for (const [index, message] of messages.entries()) {
      const found = await this.access.host.chains.locate(spot.ranges, message.id);
      const earlier = found !== undefined && found.position < spot.position;
      const version =
        index === 0 &&
        message.id !== edited &&
        (spot.recorded.has(message.id) || unrecorded?.id === message.id);
      const twice = seen.has(message.id);
      seen.add(message.id);
      if (earlier || version || twice) {
        const where = earlier
          ? "earlier in the thread"
          : version
            ? "a version of this message (switch to it with thread.switchTo)"
            : "given twice";
        throw new ConflictError(
          `Message ${JSON.stringify(message.id)} is already ${where}; give it another id. Nothing was written.`,
          message.id,
          this.#source,
        );
      }
    }
  }

  /** Why a message cannot be found: it lies on a branch the history keeps, or the thread never had it. */
  async #missing(record: LogRecord, messageId: string): Promise<SkeinError> {
    const chains = this.access.host.chains;
    const seen = new Set<string>();
    // Only on this failure path: the ends the history keeps, newest first, each searched once.
    for (const point of eventPoints(record.events).reverse()) {
      const key = `${point.segment}\u0000${point.offset}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (await chains.locate(await chains.chain(point.segment, point.offset), messageId)) {
        return new MessageOffBranchError(this.access.threadId, messageId, this.#source);
      }
    }
    return new MessageNotFoundError(this.access.threadId, messageId, this.#source);
  }
}

function describe(message: Message, index: number, current: boolean, end: LogPoint): Alternative {
  const text = messageText(message) || message.contents.map((content) => `[${content.type}]`).join(" ");
  return {
    id: message.id,
    index,
    current,
    role: message.role,
    preview: text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH - 1)}…` : text,
    length: end.position,
    end,
  };
}
