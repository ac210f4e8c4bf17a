/**
 * What MAF Python's `Content` reads and writes (agent_framework/_types.py at the fixtures' commit
 * 5eb3eb745e16, agent-framework-core 1.13.0): its 24 types and its fields in the order `Content.to_dict()`
 * writes them. `Content.from_dict` passes every other key to `Content.__init__`, which refuses it.
 */
export const MAF_CONTENT_TYPES: ReadonlySet<string> = new Set([
  "text",
  "text_reasoning",
  "data",
  "uri",
  "error",
  "function_call",
  "function_result",
  "usage",
  "hosted_file",
  "hosted_vector_store",
  "code_interpreter_tool_call",
  "code_interpreter_tool_result",
  "image_generation_tool_call",
  "image_generation_tool_result",
  "mcp_server_tool_call",
  "mcp_server_tool_result",
  "search_tool_call",
  "search_tool_result",
  "shell_tool_call",
  "shell_tool_result",
  "shell_command_output",
  "function_approval_request",
  "function_approval_response",
  "oauth_consent_request",
]);

/** `Content.to_dict()`'s field order after `type`; `annotations` comes last. */
export const CONTENT_FIELD_ORDER: readonly string[] = [
  "text",
  "protected_data",
  "uri",
  "media_type",
  "message",
  "error_code",
  "error_details",
  "usage_details",
  "call_id",
  "name",
  "arguments",
  "exception",
  "informational_only",
  "result",
  "items",
  "file_id",
  "vector_store_id",
  "inputs",
  "outputs",
  "image_id",
  "commands",
  "timeout_ms",
  "max_output_length",
  "status",
  "stdout",
  "stderr",
  "exit_code",
  "timed_out",
  "tool_name",
  "server_name",
  "output",
  "function_call",
  "user_input_request",
  "approved",
  "id",
  "consent_link",
  "additional_properties",
  "annotations",
];

/** Every key `Content.from_dict` accepts: the written fields, `type`, and `raw_representation` (read, never written). */
export const CONTENT_KEYS: ReadonlySet<string> = new Set([
  "type",
  ...CONTENT_FIELD_ORDER,
  "raw_representation",
]);

/** Fields whose values MAF revives as nested `Content` (a mapping, or a list of mappings). */
export const NESTED_CONTENT_FIELDS: readonly string[] = ["function_call", "inputs", "outputs", "items"];

/** `Message.to_dict()`'s keys in order (`type` first); in session state MAF moves `type` last. */
export const MESSAGE_KEYS: ReadonlySet<string> = new Set([
  "type",
  "role",
  "contents",
  "author_name",
  "message_id",
  "additional_properties",
  "raw_representation",
]);

/** Where skein keeps, inside MAF's `additional_properties`, what MAF has no field for. */
export const SKEIN_KEY = "skein";
