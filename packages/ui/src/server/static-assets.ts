import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { UiAssetsMissingError } from "../errors.js";

/** The browser bundle: built to dist/client beside dist/index.js. */
export interface StaticAssets {
  script: string;
  style: string;
}

/**
 * Reads the built page once at start. From dist/index.js the bundle is ./client; from the sources (the
 * package's own tests) it is ../../dist/client.
 */
export function loadStaticAssets(): StaticAssets {
  const candidates = [new URL("./client/", import.meta.url), new URL("../../dist/client/", import.meta.url)];
  const directory = candidates.find((candidate) => existsSync(new URL("app.js", candidate)));
  if (!directory) throw new UiAssetsMissingError(fileURLToPath(candidates[0] as URL));
  return {
    script: readFileSync(new URL("app.js", directory), "utf8"),
    style: readFileSync(new URL("app.css", directory), "utf8"),
  };
}

/**
 * The page's HTML. The token is put in as an attribute value, escaped, so the page's own requests can send
 * it; assets carry it in their URLs because every request is checked.
 */
export function pageHtml(token: string): string {
  const safe = escapeAttribute(token);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="skein-token" content="${safe}">
<title>skein ui</title>
<link rel="stylesheet" href="/assets/app.css?token=${safe}">
</head>
<body>
<div id="app"></div>
<script type="module" src="/assets/app.js?token=${safe}"></script>
</body>
</html>
`;
}

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
