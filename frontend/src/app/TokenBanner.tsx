// Asks for the API token when the server answers 401 (it was started with SPANLOAD_API_TOKEN).
import { type FormEvent, useEffect, useState } from "react";
import { getToken, setToken, UNAUTHORIZED_EVENT } from "@/lib/token";

export function TokenBanner() {
  const [asked, setAsked] = useState(false);
  const [value, setValue] = useState("");

  useEffect(() => {
    const ask = () => setAsked(true);
    window.addEventListener(UNAUTHORIZED_EVENT, ask);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, ask);
  }, []);

  if (!asked) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setToken(value.trim() || null);
    window.location.reload();
  };
  return (
    <form className="banner banner-error" role="alert" onSubmit={submit} data-testid="token-banner">
      {getToken() ? "The server refused the API token." : "This server needs its API token (SPANLOAD_API_TOKEN)."}
      <input type="password" aria-label="API token" value={value} onChange={(e) => setValue(e.target.value)} placeholder="token" />
      <button type="submit">Use token</button>
    </form>
  );
}
