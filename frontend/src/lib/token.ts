// The API token (SPANLOAD_API_TOKEN), needed when the server is bound beyond loopback. Kept in
// localStorage; a link with ?token=... stores it once and drops it from the address bar.
const KEY = "spanload.apiToken";
export const UNAUTHORIZED_EVENT = "spanload:unauthorized";

export function getToken(): string | null {
  try {
    return window.localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  try {
    if (token) window.localStorage.setItem(KEY, token);
    else window.localStorage.removeItem(KEY);
  } catch {
    // Storage can be disabled; the token then lasts until the page is left.
  }
}

/** Take ?token= from the page's address once, store it, and remove it from the address. */
export function adoptTokenFromUrl(location: Location = window.location, history: History = window.history): void {
  const url = new URL(location.href);
  const token = url.searchParams.get("token");
  if (!token) return;
  setToken(token);
  url.searchParams.delete("token");
  history.replaceState(history.state, "", `${url.pathname}${url.search}${url.hash}`);
}

/** Tell the shell that the server refused the token (it then asks for one). */
export function announceUnauthorized(): void {
  window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
}
