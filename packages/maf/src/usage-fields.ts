/**
 * MAF Python's `UsageDetails` keys (agent_framework/_types.py, declaration order) and the skein usage
 * counts they are; keys MAF declares that skein has no count for come after, with no skein name.
 */
export const USAGE_FROM_MAF: ReadonlyMap<string, string> = new Map([
  ["input_token_count", "inputTokens"],
  ["output_token_count", "outputTokens"],
  ["total_token_count", "totalTokens"],
  ["cache_read_input_token_count", "cachedInputTokens"],
  ["reasoning_output_token_count", "reasoningTokens"],
]);

/** The order `UsageDetails` declares its keys in, which the fixtures' dictionaries follow. */
export const USAGE_KEY_ORDER: readonly string[] = [
  "input_token_count",
  "output_token_count",
  "total_token_count",
  "cache_creation_input_token_count",
  "cache_read_input_token_count",
  "reasoning_output_token_count",
];
