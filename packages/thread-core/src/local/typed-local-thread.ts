import {
  assertNoCatalogueKey,
  CATALOGUE_KEY,
  type CatalogueFields,
  catalogueOf,
  changedCatalogue,
} from "../catalogue/catalogue-fields.js";
import { ConcurrencyError, UnsupportedOperationError } from "../errors.js";
import { withIfRevision } from "../if-revision.js";
import { jsonObjectField } from "../json.js";
import { objectArgument } from "../option-value.js";
import type { ThreadTypeRegistry } from "../spec/thread-store.js";
import { STREAMS_KEY } from "../streaming/stream-entries.js";
import type { AppendOptions, ThreadUpdate } from "../thread.js";
import type { ThreadState } from "../thread-type.js";
import {
  assertNoFieldsKey,
  FIELDS_KEY,
  fieldsState,
  ownFields,
  parseContext,
  parsedContext,
  publicContext,
  readFields,
} from "./local-fields.js";
import { LogThread, type LogThreadHost } from "./log-thread.js";

export interface TypedLocalThreadHost extends LogThreadHost {
  readonly registry: ThreadTypeRegistry;
}

/** Enough for any realistic contention on one thread's fields and context; past it the store misbehaves. */
const MAX_ATTEMPTS = 100;

/**
 * A local thread as a store binds it: its context's nested states parsed through the registry, and, for a
 * local thread of your own type (`defineThreadType({ …, local: true })`), the typed fields its
 * schema declares, validated on every change and migrated when read.
 * @example const ticket = (await store.create("acme.ticket", { subject: "Login broken" })) as TypedLocalThread<Ticket>;
 */
export class TypedLocalThread<
  Fields extends Record<string, unknown> = Record<string, unknown>,
> extends LogThread {
  declare readonly host: TypedLocalThreadHost;

  /** The typed fields, migrated to the registered version of the type. */
  get fields(): Readonly<Fields> {
    return (readFields(this.host.registry, this.record as never)?.fields ?? {}) as Fields;
  }

  /** The context, its nested states (context providers' states) validated and migrated. */
  override get context(): Readonly<Record<string, unknown>> {
    return parsedContext(this.host.registry, this.record as never);
  }

  /**
   * Replaces metadata and/or context, and merges `fields` over the current fields, validated against the
   * type's schema before anything is written. The fields and the context are stored together, so a change
   * to one never overwrites a concurrent change to the other.
   */
  override async update(
    patch: ThreadUpdate & { fields?: Partial<Fields> },
    options?: AppendOptions,
  ): Promise<void> {
    options = withIfRevision("thread.update", options, "update(patch, { ifRevision: 3 })");
    const checked = objectArgument(
      "thread.update",
      "patch",
      patch,
      "an object with metadata, context, owner, title, expiresAt and/or fields",
    );
    // Checked before anything is read or written: a bad owner or title changes nothing.
    const catalogueChange = { owner: checked.owner, title: checked.title, expiresAt: checked.expiresAt };
    changedCatalogue({}, catalogueChange);
    patch = {
      ...(checked.metadata === undefined ? {} : { metadata: jsonObjectField(checked.metadata, "metadata") }),
      ...(checked.context === undefined ? {} : { context: jsonObjectField(checked.context, "context") }),
      ...(checked.fields === undefined
        ? {}
        : { fields: jsonObjectField(checked.fields, "fields") as Partial<Fields> }),
    };
    if (patch.context !== undefined) assertNoFieldsKey(patch.context);
    if (patch.context !== undefined) assertNoCatalogueKey(patch.context);
    for (let attempt = 1; ; attempt++) {
      const record = this.record;
      const current = readFields(this.host.registry, record as never);
      const type = this.host.registry.get(record.type);
      let stored = record.context[FIELDS_KEY];
      if (patch.fields !== undefined && !current) {
        throw new UnsupportedOperationError(
          record.type,
          "fields",
          "only threads of a local type of your own (defineThreadType({ …, local: true })) have fields",
        );
      }
      const storedVersion = (record.context[FIELDS_KEY] as { $v?: unknown } | undefined)?.$v ?? 1;
      // Fields stored at an older version are written back migrated; a type not registered here is left as it is.
      const migrate = type?.local === true && storedVersion !== type.version;
      if (current && (patch.fields !== undefined || migrate)) {
        const merged = { ...(current?.fields ?? {}), ...(patch.fields ?? {}) };
        // Validated (and nested states migrated) as the whole state, so errors name the field.
        const parsed = this.host.registry.parse(
          fieldsState(record, merged, type?.version ?? current?.version ?? 1),
        ) as ThreadState;
        stored = { $v: type?.version ?? 1, ...ownFields(parsed) };
      }
      const visible = parseContext(this.host.registry, patch.context ?? publicContext(record.context));
      const catalogue: CatalogueFields = changedCatalogue(catalogueOf(record.context), catalogueChange);
      const streams = record.context[STREAMS_KEY];
      const context = {
        ...visible,
        ...(stored === undefined ? {} : { [FIELDS_KEY]: stored }),
        // The replies streaming into the thread are the record's, never the patch's.
        ...(streams === undefined ? {} : { [STREAMS_KEY]: streams }),
        ...(Object.keys(catalogue).length === 0 ? {} : { [CATALOGUE_KEY]: catalogue }),
      };
      // Fields and context are one stored object: unless the caller guards the change, guard it here and
      // retry on a fresh read, so a concurrent change to the part not patched is kept.
      const guarded = options.ifRevision ?? record.revision;
      try {
        await super.update(
          { ...(patch.metadata ? { metadata: patch.metadata } : {}), context },
          { ...options, ifRevision: guarded },
        );
        return;
      } catch (error) {
        if (
          !ConcurrencyError.isInstance(error) ||
          options.ifRevision !== undefined ||
          attempt >= MAX_ATTEMPTS
        ) {
          throw error;
        }
        await this.refresh();
      }
    }
  }
}
