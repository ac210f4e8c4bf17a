/**
 * The A2A wire JSON (ProtoJSON) of the objects this package reads and writes. The SDK's `Task.toJSON` and
 * `Message.toJSON` produce it, and `fromJSON` reads it back; working on this form keeps Buffers and the
 * SDK's `$case` unions out of the mapping, and it is what task stores persist.
 */
export interface PartJson {
  text?: string;
  /** Base64 bytes. */
  raw?: string;
  url?: string;
  data?: unknown;
  metadata?: Record<string, unknown>;
  filename?: string;
  mediaType?: string;
}

/** An A2A message as the protocol's JSON carries it. */
export interface MessageJson {
  messageId?: string;
  contextId?: string;
  taskId?: string;
  /** `ROLE_USER` or `ROLE_AGENT`. */
  role?: string;
  parts?: PartJson[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
  referenceTaskIds?: string[];
}

/** An A2A artifact as the protocol's JSON carries it. */
export interface ArtifactJson {
  artifactId?: string;
  name?: string;
  description?: string;
  parts?: PartJson[];
  metadata?: Record<string, unknown>;
}

/** An A2A task's status as the protocol's JSON carries it. */
export interface TaskStatusJson {
  /** `TASK_STATE_COMPLETED` and so on. */
  state?: string;
  message?: MessageJson;
  timestamp?: string;
}

/** An A2A task as the protocol's JSON carries it. */
export interface TaskJson {
  id?: string;
  contextId?: string;
  status?: TaskStatusJson;
  artifacts?: ArtifactJson[];
  history?: MessageJson[];
  metadata?: Record<string, unknown>;
}
