import { useEffect, useState } from "preact/hooks";

/** Where the page is: a view name and its parameters, kept in the URL's hash so the token stays in its query. */
export interface Route {
  view: "threads" | "thread";
  parameters: URLSearchParams;
}

function currentRoute(): Route {
  const hash = location.hash.replace(/^#\/?/, "");
  const [path, search] = [hash.split("?")[0] ?? "", hash.split("?").slice(1).join("?")];
  return { view: path === "thread" ? "thread" : "threads", parameters: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = () => setRoute(currentRoute());
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return route;
}

/** The hash link to a view. */
export function href(view: Route["view"], parameters: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) if (value) search.set(name, value);
  const text = search.toString();
  return `#/${view === "thread" ? "thread" : ""}${text ? `?${text}` : ""}`;
}
