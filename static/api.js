// Talks to the gateway: JSON with the client key (when one is configured) and the live
// change stream read with fetch, so the key can travel as a Bearer header (EventSource
// cannot send headers).

const KEY_STORAGE = "daygate.key";

export function storedKey() {
  try { return localStorage.getItem(KEY_STORAGE) || ""; } catch { return ""; }
}

export function storeKey(key) {
  try { localStorage.setItem(KEY_STORAGE, key); } catch { /* private mode: keep it in memory only */ }
}

function headers(extra = {}) {
  const key = storedKey();
  return key ? { ...extra, Authorization: `Bearer ${key}` } : extra;
}

export class KeyRequired extends Error {}

/** GET a gateway path; `refresh` asks the gateway to refetch from the backends. */
export async function getJSON(path, { refresh = false } = {}) {
  const response = await fetch(path, {
    headers: headers(refresh ? { "Cache-Control": "no-cache" } : {}),
    cache: "no-store",
  });
  if (response.status === 401) throw new KeyRequired();
  let body = null;
  try { body = await response.json(); } catch { /* not JSON: reported below */ }
  if (!body) throw new Error(`${path} answered ${response.status} without JSON`);
  if (body.error && !body.sections) throw new Error(body.error.message || `${path} answered ${response.status}`);
  return body;
}

/**
 * Follows GET /v1/stream. Calls onEvent(name, data) per event and onState("live"|"connecting"|
 * "offline"); reconnects with backoff (1 s doubling to 10 s) after errors or a gateway restart.
 */
export function followChanges(onEvent, onState) {
  let stopped = false;
  let delay = 1000;
  let controller = null;

  async function connect() {
    while (!stopped) {
      onState("connecting");
      controller = new AbortController();
      try {
        const response = await fetch("/v1/stream", { headers: headers(), signal: controller.signal, cache: "no-store" });
        if (response.status === 401) throw new KeyRequired();
        if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
        onState("live");
        delay = 1000;
        await readEvents(response.body, onEvent);
      } catch (error) {
        if (error instanceof KeyRequired) { onState("offline"); onEvent("key-required", {}); return; }
      }
      if (stopped) return;
      onState("offline");
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10000);
    }
  }

  connect();
  return () => { stopped = true; controller?.abort(); };
}

async function readEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let boundary;
    while ((boundary = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      let name = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
      }
      if (!data) continue;
      try { onEvent(name, JSON.parse(data)); } catch { onEvent(name, {}); }
    }
  }
}
