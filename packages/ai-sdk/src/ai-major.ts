import * as ai from "ai";

/**
 * The major version of the `ai` package the app installed: 7 has the `custom` UI part (and its guard), 6 does not.
 * The mapping gives back only parts that major validates; a part of the other major is refused on the way in.
 */
export const AI_MAJOR: 6 | 7 = "isCustomContentUIPart" in ai ? 7 : 6;

/** Part types only AI SDK 7 has: UI parts and assistant model parts. */
export const AI7_UI_PARTS = new Set(["custom", "reasoning-file", "steering-message"]);
export const AI7_MODEL_PARTS = new Set(["custom", "reasoning-file"]);
