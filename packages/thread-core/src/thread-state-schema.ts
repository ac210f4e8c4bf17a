import { z } from "zod";
import { TimestampSchema } from "./timestamp.js";

const jsonObject = z.record(z.string(), z.json());

/** The fields every thread state has. Extend it for your own types: `ThreadStateSchema.extend({ … })`. */
export const ThreadStateSchema = z.looseObject({
  $type: z.string().min(1),
  $v: z.number().int().positive().optional(),
  id: z.string().min(1),
  createdAt: TimestampSchema.optional(),
  metadata: jsonObject.optional(),
  context: jsonObject.optional(),
});
