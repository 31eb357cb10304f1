// Talks to the gateway: JSON with the client key (when one is configured), the writes (task
// inbox, ticking tasks off and reopening them, moving and removing plan slots, logging and deleting food, volunteers), and the live change stream read with fetch, so the key can travel as a
// Bearer header (EventSource cannot send headers).

const KEY_STORAGE = "daygate.key";

export function storedKey() {
  try { return localStorage.getItem(KEY_STORAGE) || ""; } catch { return ""; }
}

export function storeKey(key) {
  try { localStorage.setItem(KEY_STORAGE, key); } catch { /* private mode: keep it in memory only */ }
}

function headers(extra = {}, key = storedKey()) {
  return key ? { ...extra, Authorization: `Bearer ${key}` } : extra;
}

/**
 * A 401: the gateway refused `key` (the key the request was sent with, "" for none). By the
 * time the answer arrives another key may have been stored: then this refusal is old news.
 */
export class KeyRequired extends Error {
  constructor(key = "") {
    super("the gateway needs a client key");
    this.key = key;
  }

  /** Whether the key refused is still the one stored (so the user must be asked for another). */
  get current() { return this.key === storedKey(); }
}

/** A refused write: the gateway's `{"error":{"code","message"}}`, or what went wrong on the way. */
export class WriteFailed extends Error {
  constructor(message, { status = 0, code = "" } = {}) {
    super(message);
    this.status = status;
    this.code = code;
  }

  /**
   * Whether the write may have happened anyway (no answer, a 5xx, or an earlier try with this
   * Idempotency-Key still running): a retry must send the same key.
   */
  get unknownOutcome() { return this.status === 0 || this.status >= 500 || this.code === "idempotency_key_in_flight"; }
}

/**
 * A fresh Idempotency-Key. crypto.randomUUID exists only in secure contexts (https, localhost);
 * a gateway reached as http://daygate.lan:8787 is not one, so fall back to getRandomValues.
 */
export function newIdempotencyKey() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Sends a write (JSON, with the key when there is one; POSTs with an Idempotency-Key) and
 * returns the answer's JSON. Throws KeyRequired on 401 and WriteFailed otherwise.
 */
export async function sendJSON(method, path, body, { idempotencyKey = null } = {}) {
  const extra = { "Content-Type": "application/json" };
  if (method === "POST") extra["Idempotency-Key"] = idempotencyKey || newIdempotencyKey();
  const key = storedKey();
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: headers(extra, key),
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new WriteFailed("Could not reach the gateway. Try again.");
  }
  if (response.status === 401) throw new KeyRequired(key);
  let answer = null;
  try { answer = await response.json(); } catch { /* not JSON: reported below */ }
  if (!response.ok) {
    const error = answer && answer.error;
    throw new WriteFailed(error?.message || `The gateway answered ${response.status}.`, { status: response.status, code: error?.code || "" });
  }
  if (response.status === 204) return {};
  if (!answer) throw new WriteFailed(`The gateway answered ${response.status} without JSON.`, { status: response.status });
  return answer;
}

/** PUT /v1/plan/items/{id}: a slot of the day's plan to another hour (at the end of it). */
export function movePlanItem(itemID, hour) {
  return sendJSON("PUT", `/v1/plan/items/${encodeURIComponent(itemID)}`, { hour });
}

/**
 * DELETE /v1/plan/items/{id}?date=: a slot off the plan of `date` (a task stays open). The
 * gateway removes it only when that day's plan of this profile has it.
 */
export function removePlanItem(itemID, date) {
  const query = date ? `?date=${encodeURIComponent(date)}` : "";
  return sendJSON("DELETE", `/v1/plan/items/${encodeURIComponent(itemID)}${query}`);
}

/** POST /v1/tasks: a task in the Tickedify inbox. */
export function addTask(title, idempotencyKey) {
  return sendJSON("POST", "/v1/tasks", { title }, { idempotencyKey });
}

/** POST /v1/tasks/{id}/complete: ticks a Tickedify task off; answers `{task, next_task_id}`. */
export function completeTask(taskID, idempotencyKey) {
  return sendJSON("POST", `/v1/tasks/${encodeURIComponent(taskID)}/complete`, undefined, { idempotencyKey });
}

/** POST /v1/tasks/{id}/reopen: a completed task back into the inbox; answers `{task}`. */
export function reopenTask(taskID, idempotencyKey) {
  return sendJSON("POST", `/v1/tasks/${encodeURIComponent(taskID)}/reopen`, undefined, { idempotencyKey });
}

/** POST /v1/food-logs: logs `servings` of a food found by GET /v1/foods/search; answers `{food_log, date}`. */
export function logFood(food, servings, mealType, idempotencyKey) {
  return sendJSON("POST", "/v1/food-logs", { food_id: food.id, food_source: food.source, servings, meal_type: mealType }, { idempotencyKey });
}

/** POST /v1/meals: logs a meal in words (FitIQ works out its nutrients); answers `{meal, date}`, the meal processing. */
export function logMealInWords(text, mealType, idempotencyKey) {
  return sendJSON("POST", "/v1/meals", { text, meal_type: mealType }, { idempotencyKey });
}

/** DELETE /v1/food-logs/{id}: removes a logged food (204, no body). */
export function deleteFoodLog(logID) {
  return sendJSON("DELETE", `/v1/food-logs/${encodeURIComponent(logID)}`);
}

/** POST /v1/diensten/{id}/volunteers: signs a name up; answers `{dienst}`. */
export function addVolunteer(dienstID, name, idempotencyKey) {
  return sendJSON("POST", `/v1/diensten/${encodeURIComponent(dienstID)}/volunteers`, { name }, { idempotencyKey });
}

/** DELETE /v1/diensten/{id}/volunteers/{name}: takes a name off; answers `{dienst}`. */
export function removeVolunteer(dienstID, name) {
  return sendJSON("DELETE", `/v1/diensten/${encodeURIComponent(dienstID)}/volunteers/${encodeURIComponent(name)}`);
}

/**
 * GET a gateway path; `refresh` asks the gateway to refetch from the backends. A refusal throws an
 * Error with the gateway's message, `status` and `code` (`not_found` for a thing that is not there). Otherwise the
 * gateway answers from its cache. Both headers are always set: with `cache: "no-store"` (no
 * copy in the browser's HTTP cache, so an answer after a change event is never an old one) the
 * browser would otherwise add `Cache-Control: no-cache` and `Pragma: no-cache` itself, and the
 * gateway would refetch every section from every backend on every load.
 */
export async function getJSON(path, { refresh = false } = {}) {
  const key = storedKey();
  const cacheHeaders = refresh ? { "Cache-Control": "no-cache", Pragma: "no-cache" } : { "Cache-Control": "no-store", Pragma: "" };
  const response = await fetch(path, { headers: headers(cacheHeaders, key), cache: "no-store" });
  if (response.status === 401) throw new KeyRequired(key);
  let body = null;
  try { body = await response.json(); } catch { /* not JSON: reported below */ }
  if (!body) throw new Error(`${path} answered ${response.status} without JSON`);
  if (body.error && !body.sections) {
    throw Object.assign(new Error(body.error.message || `${path} answered ${response.status}`), { status: response.status, code: body.error.code || "" });
  }
  return body;
}

/**
 * Follows GET /v1/stream (or `path`: /v1/household/stream for the wall). Calls onEvent(name, data)
 * per event and onState("live"|"connecting"|"offline"); reconnects with backoff (1 s doubling to
 * 10 s) after errors or a gateway restart. A 401 ends it with onEvent("key-required", {error}) (a
 * KeyRequired). Once stopped it calls neither again, whatever is still on its way.
 */
export function followChanges(onEvent, onState, path = "/v1/stream") {
  let stopped = false;
  let delay = 1000;
  let controller = null;

  async function connect() {
    while (!stopped) {
      onState("connecting");
      controller = new AbortController();
      try {
        const key = storedKey();
        const response = await fetch(path, { headers: headers({}, key), signal: controller.signal, cache: "no-store" });
        if (stopped) return;
        if (response.status === 401) throw new KeyRequired(key);
        if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
        onState("live");
        delay = 1000;
        await readEvents(response.body, (name, data) => { if (!stopped) onEvent(name, data); });
      } catch (error) {
        if (stopped) return;
        if (error instanceof KeyRequired) { onState("offline"); onEvent("key-required", { error }); return; }
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
