/** The JSON every thread is: `$type`, `$v`, `id`, `createdAt`, `metadata` and `context`. */
export interface ThreadState {
  $type: string;
  // `| undefined` on optional fields: what zod infers for `.optional()`, so a user's schema
  // (`ThreadStateSchema.extend(…)`) fits here with `exactOptionalPropertyTypes` on.
  $v?: number | undefined;
  id: string;
  createdAt?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  context?: Record<string, unknown> | undefined;
  [field: string]: unknown;
}
