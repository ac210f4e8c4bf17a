import { expect, test } from "vitest";
import { redactSecrets } from "./redact-secrets.js";

test("scrubs bearer headers and JWT-shaped tokens", () => {
  const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
  expect(redactSecrets(`Authorization: Bearer abc.def-123 and ${jwt} end`)).toBe(
    "Authorization: Bearer *** and *** end",
  );
  expect(redactSecrets("nothing secret")).toBe("nothing secret");
});
