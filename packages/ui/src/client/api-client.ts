import type { ApiErrorBody } from "../api-types.js";

/** The access token the server wrote into the page; every request sends it. */
const token = document.querySelector<HTMLMetaElement>('meta[name="skein-token"]')?.content ?? "";

/** A failed API call, with the server's own message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Parameters = Record<string, string | number | boolean | undefined>;

function query(parameters: Parameters): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters))
    if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

async function parse<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => undefined)) as T | ApiErrorBody | undefined;
  if (!response.ok) {
    const message = (body as ApiErrorBody | undefined)?.error?.message ?? `HTTP ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return body as T;
}

/** The address of a stream of server-sent events; an `EventSource` cannot send headers, so the token goes in the query. */
export function eventStreamUrl(path: string, parameters: Parameters = {}): string {
  return `${path}${query({ ...parameters, token })}`;
}

export async function getJson<T>(path: string, parameters: Parameters = {}): Promise<T> {
  return parse<T>(await fetch(`${path}${query(parameters)}`, { headers: { "x-skein-token": token } }));
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return parse<T>(
    await fetch(path, {
      method: "POST",
      headers: { "x-skein-token": token, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
