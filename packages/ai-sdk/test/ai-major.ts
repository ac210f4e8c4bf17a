import * as ai from "ai";

/** The `ai` major these tests run against: 7 (the Node 24 pass, ai 7 aliased) has the `custom` part guard, 6 not. */
export const installedMajor: 6 | 7 =
  typeof (ai as Record<string, unknown>).isCustomContentUIPart === "function" ? 7 : 6;
export const onAi6 = installedMajor === 6;
export const onAi7 = installedMajor === 7;
