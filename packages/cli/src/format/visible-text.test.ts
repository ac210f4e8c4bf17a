import { describe, expect, it } from "vitest";
import { visibleText } from "./visible-text.js";

/** What a terminal would act on: no output for people may hold one raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("visibleText", () => {
  it("writes every control character as its JSON escape", () => {
    expect(visibleText("\u001b]0;pwned\u0007")).toBe("\\u001b]0;pwned\\u0007");
    expect(visibleText("\u001b]8;;https://evil.example\u001b\\click")).toBe(
      "\\u001b]8;;https://evil.example\\u001b\\click",
    );
    expect(visibleText("a\u009b2Jb\u007fc\u0000d")).toBe("a\\u009b2Jb\\u007fc\\u0000d");
    expect(visibleText("rtl\u202egnp.exe \u2066x\u2069 \u2028")).toBe(
      "rtl\\u202egnp.exe \\u2066x\\u2069 \\u2028",
    );
  });

  it("leaves every other character alone, and is idempotent", () => {
    const plain = "Yes: 24°C and clear. 日本語 🧵 \\u001b é";
    expect(visibleText(plain)).toBe(plain);
    const hostile = "x\u001b[2J\r\n\ty\u0085";
    expect(visibleText(visibleText(hostile))).toBe(visibleText(hostile));
  });

  it("renders every control character of the whole range, one line or several", () => {
    const all = Array.from({ length: 0x2070 }, (_, code) => String.fromCharCode(code)).join("");
    expect(visibleText(all)).not.toMatch(RAW_CONTROL);
    const lines = visibleText(all, "lines");
    expect(lines.replace(/[\n\t]/g, "")).not.toMatch(RAW_CONTROL);
  });

  it("keeps line feeds and tabs only when the text is shown on several lines", () => {
    expect(visibleText("a\nb\tc\rd")).toBe("a\\u000ab\\u0009c\\u000dd");
    expect(visibleText("a\nb\tc\rd", "lines")).toBe("a\nb\tc\\u000dd");
  });
});
