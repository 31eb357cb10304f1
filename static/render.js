// Turns gateway answers into DOM. Every text goes in through textContent, never as HTML.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") element.className = value;
    else if (name === "text") element.textContent = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

function ago(seconds) {
  if (seconds === null || seconds === undefined) return "";
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** The freshness of one section: fresh, refreshing, stale for n minutes, or its error. */
export function badge(name, report) {
  if (!report) return h("span", { class: "badge", "data-state": "off", "data-section": name, text: `${name}: not configured` });
  let state;
  let text;
  if (report.status === "ok" && report.cache !== "stale") { state = "fresh"; text = `fresh · ${ago(report.age_seconds)}`; }
  else if (report.status === "ok") { state = "refreshing"; text = `refreshing · ${ago(report.age_seconds)} old`; }
  else if (report.status === "stale") { state = "stale"; text = `stale for ${ago(report.age_seconds)}`; }
  else if (report.status === "partial") { state = "partial"; text = "partial"; }
  else { state = "error"; text = report.status === "timeout" ? "timed out" : "unavailable"; }
  const title = report.error ? report.error.message : (report.issues || []).map((issue) => `${issue.scope}: ${issue.message}`).join("\n");
  return h("span", { class: "badge", "data-state": state, "data-section": name, title: title || null, text: `${name}: ${text}` });
}

/** The error line under a section's title, when it has one. */
export function problems(reports) {
  const lines = [];
  for (const report of reports) {
    if (!report) continue;
    if (report.error) lines.push(h("p", { class: "section-error", role: "note", text: report.error.message }));
    for (const issue of report.issues || []) lines.push(h("p", { class: "section-error", role: "note", text: `${issue.scope}: ${issue.message}` }));
  }
  return lines;
}

/** "HH:MM" of an ISO time as the gateway wrote it (the household's zone, whatever the browser's). */
export function clock(iso) {
  return typeof iso === "string" && iso.length >= 16 ? iso.slice(11, 16) : "";
}

function minutes(iso) {
  const text = clock(iso);
  return text ? Number(text.slice(0, 2)) * 60 + Number(text.slice(3, 5)) : 0;
}

/** A colour the dashboard may paint with: `#rgb` or `#rrggbb` only (it comes from upstream). */
export function safeColor(value) {
  return typeof value === "string" && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(value) ? value : null;
}

/**
 * The checkbox that ticks a Tickedify task off (or, in the done list, reopens it). `where` keeps
 * ids unique when one task shows in two places (the timeline and a list); `states` (task id →
 * {busy: "complete"|"reopen", done, error}) keeps a write in flight and its refusal across
 * redraws. The refusal is shown under the task (`role=alert`) and tied to the box. A box whose
 * write is on its way is `aria-disabled` (not `disabled`, which would throw the focus out).
 */
function taskCheck(task, where, states, { completed = false } = {}) {
  const state = states.get(task.id) || {};
  const id = `${where}-${task.id}`;
  const checked = completed ? state.busy !== "reopen" && !state.done : Boolean(state.busy === "complete" || state.done);
  return {
    box: h("input", {
      type: "checkbox", class: "task-check", id: `check-${id}`, "data-action": completed ? "reopen-task" : "complete-task",
      "data-task": task.id, "data-title": task.title, checked, "aria-disabled": state.busy ? "true" : null,
      "aria-label": completed ? `Done: ${task.title} (uncheck to reopen)` : `Done: ${task.title}`,
      "aria-invalid": state.error ? "true" : null, "aria-describedby": state.error ? `error-${id}` : null,
    }),
    error: state.error ? h("p", { class: "task-error", id: `error-${id}`, role: "alert", text: state.error }) : null,
    done: checked,
  };
}

/**
 * The controls of one slot of the day's plan: its hour as a select (choosing another moves it
 * there) and a button that takes it off the plan. `states` (plan item id → {busy: "move" |
 * "remove", hour, error}) keeps a write in flight (the hour it goes to) and its refusal, shown
 * under the slot (`role=alert`) and tied to both controls.
 */
function slotControls(item, states) {
  const state = states.get(item.id) || {};
  const errorID = state.error ? `error-slot-${item.id}` : null;
  const busy = state.busy ? "true" : null;
  const current = state.busy === "move" && Number.isInteger(state.hour) ? state.hour : item.hour;
  const hours = Array.from({ length: 24 }, (_, hour) => h("option", { value: hour, selected: hour === current, text: `${String(hour).padStart(2, "0")}:00` }));
  return {
    hour: h("select", {
      class: "slot-hour", id: `hour-${item.id}`, "data-action": "move-slot", "data-item": item.id, "data-title": item.title,
      "aria-label": `Hour of ${item.title}`, "aria-disabled": busy, "aria-invalid": state.error ? "true" : null, "aria-describedby": errorID,
    }, hours),
    remove: h("button", {
      type: "button", class: "slot-remove", id: `remove-${item.id}`, "data-action": "remove-slot", "data-item": item.id, "data-title": item.title,
      "aria-label": `Remove ${item.title} from the plan`, title: "Remove from the day's plan", "aria-disabled": busy, "aria-describedby": errorID, text: "×",
    }),
    error: state.error ? h("p", { class: "task-error", id: errorID, role: "alert", text: state.error }) : null,
  };
}

/** Events and planned slots of one day, merged by time; all-day events first. Events keep
 * their colour (an 8alls colour, or their subscribed calendar's) and name their calendar.
 * Planned tasks have a checkbox that ticks them off (`taskCheck`); every planned slot has its
 * hour as a select and a remove button (`slotControls`). */
export function timeline(date, plan, events, tasks = new Map(), slots = new Map()) {
  const rows = [];
  for (const event of events || []) {
    const startsToday = (event.start || "").startsWith(date);
    rows.push({
      key: event.all_day ? -1 : (startsToday ? minutes(event.start) : 0), order: 0, kind: "event",
      time: event.all_day ? "all day" : `${startsToday ? clock(event.start) : "…"}–${(event.end || "").startsWith(date) ? clock(event.end) : "…"}`,
      title: event.title, status: event.status, color: safeColor(event.color), calendar: event.calendar || null,
      sub: [event.calendar, event.location, event.status !== "confirmed" ? event.status : null].filter(Boolean).join(" · "),
    });
  }
  for (const item of plan || []) {
    const duration = item.duration_minutes ? `${item.duration_minutes} min` : "";
    const check = item.kind === "task" && item.task_id ? taskCheck({ id: item.task_id, title: item.title }, "plan", tasks) : null;
    rows.push({
      key: item.hour * 60, order: 1 + (item.position ?? 0), kind: item.kind, item: item.id,
      time: `${String(item.hour).padStart(2, "0")}:00`, title: item.title, sub: duration, check,
      slot: item.id ? slotControls(item, slots) : null,
    });
  }
  rows.sort((a, b) => a.key - b.key || a.order - b.order);
  if (!rows.length) return [h("li", {}, h("span"), h("p", { class: "empty", text: "Nothing planned." }))];
  const labels = { event: "event", task: "task", break: "break", blocked: "blocked" };
  return rows.map((row) => h("li", {
    "data-kind": row.kind, "data-status": row.status || null, "data-calendar": row.calendar || null,
    "data-task": row.check?.box.dataset.task || null, "data-done": row.check ? String(row.check.done) : null,
    "data-item": row.item || null,
  },
  row.slot ? row.slot.hour : h("time", { text: row.time }),
  painted(row.color, h("div", { class: "what" },
    row.check ? h("label", { class: "task-line" }, row.check.box,
      h("span", { class: "kind", text: labels[row.kind] }), h("span", { class: "title", text: row.title }))
      : row.slot ? h("span", { class: "slot-line" }, h("span", { class: "kind", text: labels[row.kind] || row.kind }), h("span", { class: "title", text: row.title }))
        : [h("span", { class: "kind", text: labels[row.kind] || row.kind }), h("span", { class: "title", text: row.title })],
    row.slot?.remove,
    row.sub ? h("span", { class: "sub", text: row.sub }) : null,
    row.check?.error, row.slot?.error))));
}

/**
 * One of Tickedify's lists (inbox, actions, follow up), or the tasks done on the day
 * (`completed`: their boxes are ticked, unticking reopens one into the inbox).
 */
export function taskList(tasks, states = new Map(), { completed = false } = {}) {
  if (!tasks || !tasks.length) return [h("li", {}, h("p", { class: "empty", text: completed ? "Nothing done yet." : "No open tasks." }))];
  return tasks.map((task) => {
    const check = taskCheck(task, completed ? "done" : "list", states, { completed });
    const when = completed && task.completed_at ? `done ${clock(task.completed_at)}` : task.appears_on ? `from ${task.appears_on}` : "";
    return h("li", { "data-task": task.id, "data-done": String(check.done) },
      h("label", { class: "task-line" }, check.box, h("span", { class: "title", text: task.title })),
      when || task.priority === "high" ? h("span", { class: "sub", text: [task.priority === "high" ? "high priority" : "", when].filter(Boolean).join(" · ") }) : null,
      check.error);
  });
}

/** The element with its left border in `color` (through the CSSOM, which the page's
 * Content-Security-Policy allows where a style attribute would be refused). */
function painted(color, element) {
  if (color) element.style.borderLeftColor = color;
  return element;
}

export function counts(values) {
  if (!values) return [h("p", { class: "empty", text: "No counts." })];
  const names = { inbox: "Inbox", acties: "Actions", opvolgen: "Follow up", projecten: "Projects", uitgesteld: "Deferred" };
  return Object.entries(names).map(([key, label]) => h("div", {}, h("dt", { text: label }), h("dd", { "data-count": key, text: values[key] ?? 0 })));
}

export function nutrition(summary) {
  if (!summary) return [h("p", { class: "empty", text: "No nutrition data." })];
  const goal = summary.goal_calories || 0;
  const share = goal > 0 ? Math.min(summary.calories / goal, 1) : 0;
  const circumference = 2 * Math.PI * 50;
  const svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("viewBox", "0 0 120 120");
  svg.setAttribute("class", "ring");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", goal ? `${summary.calories} of ${goal} kcal` : `${summary.calories} kcal`);
  const track = document.createElementNS(svgNS, "circle");
  for (const [k, v] of [["cx", 60], ["cy", 60], ["r", 50], ["class", "track"]]) track.setAttribute(k, v);
  const fill = document.createElementNS(svgNS, "circle");
  for (const [k, v] of [["cx", 60], ["cy", 60], ["r", 50], ["class", "fill"], ["data-over", String(goal > 0 && summary.calories > goal)],
    ["stroke-dasharray", `${circumference * share} ${circumference}`]]) fill.setAttribute(k, v);
  const big = document.createElementNS(svgNS, "text");
  big.setAttribute("x", "60"); big.setAttribute("y", "62"); big.textContent = `${summary.calories}`;
  const small = document.createElementNS(svgNS, "text");
  small.setAttribute("x", "60"); small.setAttribute("y", "80"); small.setAttribute("class", "small");
  small.textContent = goal ? `of ${goal} kcal` : "kcal";
  svg.append(track, fill, big, small);

  const macroTotal = Math.max(summary.protein_g + summary.carbs_g + summary.fat_g, 1);
  const macro = (label, grams, id) => h("label", { for: id },
    h("span", { text: label }),
    h("meter", { id, min: 0, max: macroTotal, value: grams }),
    h("span", { text: `${Math.round(grams)} g` }));
  const meals = summary.meals || {};
  const mealText = ["breakfast", "lunch", "dinner", "snack"].map((name) => {
    const meal = meals[name] || {};
    const items = `${meal.items ?? 0} item${meal.items === 1 ? "" : "s"}`;
    return `${name}: ${meal.calories != null ? `${meal.calories} kcal, ` : ""}${items}`;
  }).join(" · ");
  const remaining = summary.remaining_calories;
  return [h("div", { class: "nutrition" }, svg,
    h("div", { class: "macros" },
      macro("Protein", summary.protein_g, "macro-protein"),
      macro("Carbs", summary.carbs_g, "macro-carbs"),
      macro("Fat", summary.fat_g, "macro-fat"),
      remaining != null ? h("p", { class: "sub", text: remaining >= 0 ? `${remaining} kcal left` : `${-remaining} kcal over` }) : null),
    h("p", { class: "meals", text: mealText }))];
}

const MEALS = { breakfast: "Breakfast", lunch: "Lunch", dinner: "Dinner", snack: "Snack" };

/** "2 × Banana" with its kcal, for a food log or a food found. */
function portion(servings, name) {
  return `${servings === 1 ? "" : `${servings} × `}${name || "Unknown food"}`;
}

/**
 * The food logged on the day (from /v1/nutrition's food_logs), by meal, each with a button that
 * deletes it; `states` (log id → {busy, error}) keeps a delete in flight and its refusal.
 */
export function foodLogs(logs, states = new Map()) {
  if (!logs || !logs.length) return [];
  const order = Object.keys(MEALS);
  const sorted = [...logs].sort((a, b) => order.indexOf(a.meal_type) - order.indexOf(b.meal_type) || String(a.logged_at).localeCompare(String(b.logged_at)));
  return sorted.map((log) => {
    const state = states.get(log.id) || {};
    const text = portion(log.servings, log.name);
    const errorID = `food-log-${log.id}-error`;
    return h("li", { "data-log": log.id, "aria-busy": state.busy ? "true" : null },
      h("span", { class: "meal", text: MEALS[log.meal_type] || log.meal_type }),
      h("span", { class: "food", text }),
      h("span", { class: "kcal", text: log.calories != null ? `${Math.round(log.calories)} kcal` : "" }),
      h("button", {
        type: "button", class: "remove", id: `food-log-${log.id}-delete`, "data-action": "delete-food-log", "data-log": log.id,
        "data-name": text, "aria-label": `Delete ${text} (${MEALS[log.meal_type] || log.meal_type})`, title: "Delete",
        "aria-describedby": state.error ? errorID : null, disabled: Boolean(state.busy), text: "×",
      }),
      state.error ? h("p", { class: "task-error", id: errorID, role: "alert", text: state.error }) : null);
  });
}

/** The meals logged in words (or in the FitIQ app): kcal once FitIQ has them, "working it out…" before. */
export function mealLogs(meals) {
  if (!meals || !meals.length) return [];
  return meals.map((meal) => {
    const status = meal.status === "processing" ? "working it out…" : meal.status === "failed" ? "not understood" : "";
    return h("li", { "data-meal": meal.id, "data-status": meal.status || "" },
      h("span", { class: "meal", text: MEALS[meal.meal_type] || meal.meal_type || "" }),
      h("span", { class: "food", text: meal.description || "Meal" }),
      h("span", { class: "kcal", text: meal.calories != null ? `${Math.round(meal.calories)} kcal` : status, title: meal.error || null }));
  });
}

/** The foods a search found, as radio buttons (one is picked to log); values are per serving. */
export function foodResults(foods, picked) {
  return foods.map((food, index) => {
    const id = `food-${index}`;
    const serving = food.serving_size != null ? `${food.serving_size}${food.serving_unit ? ` ${food.serving_unit}` : ""}` : "1 serving";
    return h("li", {},
      h("input", { type: "radio", name: "food", id, value: food.id, checked: picked === food.id }),
      h("label", { for: id },
        h("span", { class: "food", text: food.brand ? `${food.name} (${food.brand})` : food.name }),
        h("span", { class: "sub", text: `${Math.round(food.calories ?? 0)} kcal per ${serving}` })));
  });
}

/** "28/11 08:30–11:00" of a dienst. */
export function dienstWhen(dienst) {
  return `${(dienst.start || "").slice(5, 10).split("-").reverse().join("/")} ${clock(dienst.start)}–${clock(dienst.end)}`;
}

/** Whether this page may change a dienst's volunteers: a manager sees it and it has not started. */
export function manageable(dienst, now = Date.now()) {
  const start = Date.parse(dienst.start || "");
  return dienst.role === "manager" && Number.isFinite(start) && start > now;
}

/**
 * Upcoming diensten grouped by club, with volunteers filled/needed and the role that sees them.
 * Diensten a manager sees that have not started get their volunteers with a remove button each
 * and a form to add one; `drafts` (dienst id → {value, error, busy: "add"|"remove"}) keeps what was typed, the
 * last refusal and a write in flight across re-renders. Actions are found by `data-action`.
 */
export function diensten(list, { now = Date.now(), drafts = new Map() } = {}) {
  if (!list || !list.length) return [h("p", { class: "empty", text: "No shifts coming up." })];
  const clubs = new Map();
  for (const dienst of list) {
    if (!clubs.has(dienst.tenant)) clubs.set(dienst.tenant, []);
    clubs.get(dienst.tenant).push(dienst);
  }
  return [...clubs.entries()].map(([club, items]) => h("div", { class: "club", "data-club": club },
    h("h3", { text: club }),
    h("ul", { class: "diensten" }, items.slice(0, 8).map((dienst) => {
      const volunteers = dienst.volunteers || [];
      const filled = volunteers.length;
      const needed = dienst.volunteers_needed || 0;
      const open = dienst.open_spots ?? Math.max(needed - filled, 0);
      const what = [dienst.type?.name, dienst.team?.code || dienst.team?.name || "open"].filter(Boolean).join(" · ");
      const editable = manageable(dienst, now);
      const whenID = `dienst-${dienst.id}-when`;
      return h("li", { "data-id": dienst.id, "data-role": dienst.role, "data-open-spots": open, "data-manageable": String(editable) },
        h("span", { class: "when", id: whenID, text: dienstWhen(dienst) }),
        h("span", { text: what }),
        h("span", { class: "role", text: dienst.role }),
        h("span", { class: "spots", "data-open": String(filled < needed), title: volunteers.join(", ") || null, text: `${filled}/${needed}` }),
        editable ? manage(dienst, `${dienstWhen(dienst)} ${what}`, whenID, drafts.get(dienst.id) || {}) : null);
    }))));
}

function manage(dienst, label, whenID, draft) {
  const inputID = `dienst-${dienst.id}-name`;
  const errorID = `dienst-${dienst.id}-error`;
  const volunteers = dienst.volunteers || [];
  return h("div", { class: "manage", "aria-busy": draft.busy ? "true" : null },
    volunteers.length
      ? h("ul", { class: "volunteers", "aria-label": `Volunteers ${label}` }, volunteers.map((name) => h("li", {},
        h("span", { class: "name", text: name }),
        h("button", {
          type: "button", class: "remove", id: `dienst-${dienst.id}-remove-${encodeURIComponent(name)}`, "data-action": "remove-volunteer",
          "data-dienst": dienst.id, "data-name": name, "aria-label": `Remove ${name}`, "aria-describedby": whenID,
          title: `Remove ${name}`, disabled: Boolean(draft.busy), text: "×",
        }))))
      : null,
    h("form", { class: "volunteer-add", "data-action": "add-volunteer", "data-dienst": dienst.id, novalidate: true },
      h("label", { class: "visually-hidden", for: inputID, text: `Volunteer name for ${label}` }),
      h("input", {
        id: inputID, name: "name", type: "text", maxlength: 15, autocomplete: "off", placeholder: "Name",
        value: draft.value || null, "aria-invalid": draft.error ? "true" : null, "aria-describedby": draft.error ? errorID : null,
      }),
      h("button", { type: "submit", "aria-describedby": whenID, disabled: Boolean(draft.busy), text: draft.busy === "add" ? "Adding…" : "Add" })),
    draft.error ? h("p", { class: "dienst-error", id: errorID, role: "alert", text: draft.error }) : null);
}

function link(url, text) {
  return url && /^https?:\/\//.test(url) ? h("a", { href: url, rel: "noopener noreferrer", text: text || url }) : null;
}

/**
 * Recently saved items. Each title is a button that opens the item in place (`opened`: item id →
 * {busy, item, error}, the answer of /v1/knowledge/items/{id}): its summary, content, tags and link.
 */
export function knowledge(items, opened = new Map()) {
  if (!items || !items.length) return [h("li", {}, h("p", { class: "empty", text: "Nothing saved recently." }))];
  return items.map((item) => {
    const open = opened.get(item.id);
    const detailID = `item-${item.id}-detail`;
    return h("li", { "data-item": item.id },
      h("button", {
        type: "button", class: "item-toggle", id: `item-${item.id}-toggle`, "data-action": "toggle-item", "data-item": item.id,
        "aria-expanded": String(Boolean(open)), "aria-controls": detailID, text: item.title || item.url || "Untitled",
      }),
      item.url && /^https?:\/\//.test(item.url)
        ? h("a", { class: "item-link", href: item.url, rel: "noopener noreferrer", "aria-label": `Open ${item.title || "the link"}`, title: item.url, text: "↗" })
        : null,
      h("span", { class: "sub" },
        (item.tags || []).map((tag) => h("span", { class: "tag", text: tag })),
        item.created_at ? `${item.created_at.slice(0, 10)} ${clock(item.created_at)}` : ""),
      open ? h("div", { class: "item-detail", id: detailID, role: "region", "aria-label": item.title || "Saved item", "aria-busy": open.busy ? "true" : null },
        open.busy ? h("p", { class: "empty", text: "Loading…" }) : null,
        open.error ? h("p", { class: "task-error", role: "alert", text: open.error }) : null,
        open.item ? itemDetail(open.item) : null) : null);
  });
}

function itemDetail(item) {
  const content = (item.content || "").trim();
  return [
    item.summary ? h("p", { class: "summary", text: item.summary }) : null,
    content && content !== (item.summary || "").trim() ? h("p", { class: "content", text: content.length > 1200 ? `${content.slice(0, 1200)}…` : content }) : null,
    !item.summary && !content ? h("p", { class: "empty", text: "No text saved with this item." }) : null,
    h("p", { class: "sub" }, [item.type, item.url ? null : "note"].filter(Boolean).join(" · "), " ", link(item.url, "Open the link")),
  ];
}

/**
 * A card for a section of the day that has no card of its own (a backend this page was not
 * written for), built from its JSON value alone: the section's name made readable as the title,
 * its freshness badge and problems, then the value — an object as label/value lines (a nested
 * object's scalars as "Outer · inner" lines, a list of scalars joined, a list of objects as items
 * under its own heading), a list of objects as items (title, name, summary or text as the line;
 * start, time or date as HH:MM; the other scalar fields small), a scalar as one line. The answer
 * is untrusted: at most GENERIC.items items and GENERIC.lines lines (then "… and n more"), texts
 * cut at GENERIC.text characters, all of it as text.
 */
export const GENERIC = { items: 20, lines: 12, text: 200, label: 60, fields: 6, lists: 3 };
const ITEM_LINE = ["title", "name", "summary", "text", "label", "description"];
const ITEM_TIME = ["start", "time", "date", "starts_at", "at"];
const ITEM_END = ["end", "ends_at"];
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

function cut(text, length = GENERIC.text) {
  const chars = [...String(text).slice(0, length * 2)];
  return chars.length > length || String(text).length > length * 2 ? `${chars.slice(0, length - 1).join("")}…` : chars.join("");
}

/** "air_quality" and "airQuality" → "Air quality". */
export function humanise(name) {
  const words = String(name).slice(0, GENERIC.label * 2).replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_\-.\s]+/g, " ").trim().toLowerCase();
  return cut(words ? words[0].toUpperCase() + words.slice(1) : "Section", GENERIC.label);
}

function isScalar(value) {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A scalar as text: an ISO time as HH:MM (with its date when it is not on `day`), yes/no, "—" for null. */
function scalarText(value, day) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return Number.isFinite(value) ? String(Math.round(value * 100) / 100) : "—";
  if (ISO_TIME.test(value)) return day && value.startsWith(day) ? clock(value) : `${value.slice(0, 10)} ${clock(value)}`;
  return cut(value);
}

/** A list of scalars as one text: the first GENERIC.items of them, then "…". */
function joined(list, day) {
  const shown = list.slice(0, GENERIC.items).filter(isScalar).map((value) => scalarText(value, day));
  return cut(shown.join(", ") + (list.length > GENERIC.items ? ", …" : ""));
}

function holdsObjects(list) {
  return list.slice(0, GENERIC.items).some((entry) => !isScalar(entry));
}

/**
 * The label/value lines of an object, at most `limit` (`rest` counts the ones left out): scalars
 * and lists of scalars as they are, a nested object's scalars and lists of scalars as
 * "Outer · inner" (one level: deeper ones are left out). Lists of objects come back apart in
 * `lists` (they become item lists).
 */
function pairs(object, day, limit) {
  const lines = [];
  const lists = [];
  let rest = 0;
  const line = (label, value) => {
    if (isScalar(value)) lines.push([label(), scalarText(value, day)]);
    else if (Array.isArray(value) && !holdsObjects(value)) lines.push([label(), value.length ? joined(value, day) : "none"]);
    else return false;
    return true;
  };
  for (const [key, value] of Object.entries(object)) {
    if (Array.isArray(value) && holdsObjects(value)) { if (lists.length < GENERIC.lists) lists.push([key, value]); continue; }
    if (isObject(value)) {
      for (const [inner, innerValue] of Object.entries(value)) {
        if (lines.length >= limit) { rest += isObject(innerValue) ? 0 : 1; continue; }
        line(() => `${humanise(key)} · ${humanise(inner).toLowerCase()}`, innerValue);
      }
    } else if (lines.length >= limit) rest += 1;
    else line(() => humanise(key), value);
  }
  return { lines, lists, rest };
}

function valueLines(lines, rest) {
  if (!lines.length) return [];
  return [h("dl", { class: "generic-lines" },
    lines.map(([label, text]) => h("div", {}, h("dt", { text: label }), h("dd", { text }))),
    rest ? h("div", { class: "generic-more" }, h("dt", { text: "More" }), h("dd", { text: `… and ${rest} more` })) : null)];
}

function firstOf(item, names) {
  return names.find((name) => isScalar(item[name]) && item[name] !== null && item[name] !== "") ?? null;
}

/** One item of a list: its line, its time, its other scalar fields small (ids left out). */
function genericItem(item, day) {
  if (!isObject(item)) return h("li", {}, h("span", { class: "title", text: Array.isArray(item) ? joined(item, day) : scalarText(item, day) }));
  const lineKey = firstOf(item, ITEM_LINE) ?? Object.keys(item).slice(0, 50).find((key) => typeof item[key] === "string" && item[key] && !ISO_TIME.test(item[key])) ?? null;
  const timeKey = firstOf(item, ITEM_TIME);
  const endKey = timeKey ? firstOf(item, ITEM_END) : null;
  const when = timeKey ? scalarText(item[timeKey], day) + (endKey ? `–${scalarText(item[endKey], day)}` : "") : "";
  const used = new Set([lineKey, timeKey, endKey, "id"]);
  const others = {};
  for (const key of Object.keys(item).slice(0, 50)) if (!used.has(key) && !key.endsWith("_id")) others[key] = item[key];
  const { lines } = pairs(others, day, GENERIC.fields);
  return h("li", {},
    when ? h("span", { class: "when", text: cut(when, 40) }) : null,
    h("span", { class: "title", text: lineKey ? scalarText(item[lineKey], day) : "Item" }),
    lines.length ? h("span", { class: "sub", text: cut(lines.map(([label, text]) => `${label} ${text}`).join(" · ")) }) : null);
}

/** The items of a list, as many as `budget.items` still allows (shared by a card's lists). */
function itemList(list, day, budget, label) {
  const shown = list.slice(0, Math.max(budget.items, 0));
  budget.items -= shown.length;
  const rest = list.length - shown.length;
  return h("ul", { class: "generic-items", "aria-label": label },
    shown.map((item) => genericItem(item, day)),
    rest > 0 ? h("li", { class: "generic-more" }, h("span", { class: "sub", text: `… and ${rest} more` })) : null);
}

/** What a section's value shows: lines, items or one line; "No data." when there is nothing. */
export function genericContent(value, { day = "", title = "" } = {}) {
  if (value === null || value === undefined) return [h("p", { class: "empty", text: "No data." })];
  if (isScalar(value)) return [h("p", { class: "generic-value", text: scalarText(value, day) })];
  const budget = { items: GENERIC.items };
  if (Array.isArray(value)) {
    if (!value.length) return [h("p", { class: "empty", text: "Nothing." })];
    return [holdsObjects(value) ? itemList(value, day, budget, title) : h("p", { class: "generic-value", text: joined(value, day) })];
  }
  const { lines, lists, rest } = pairs(value, day, GENERIC.lines);
  const nodes = valueLines(lines, rest);
  for (const [key, list] of lists) {
    if (budget.items <= 0) break;
    nodes.push(h("h3", { text: humanise(key) }), itemList(list, day, budget, humanise(key)));
  }
  return nodes.length ? nodes : [h("p", { class: "empty", text: "No data." })];
}

/**
 * The card of a section without one of its own; `index` keeps its ids unique whatever the
 * section is called. A null value with a problem shows the problem alone.
 */
export function genericSection(name, report, value, { day = "", index = 0 } = {}) {
  const title = humanise(name);
  const titleID = `generic-${index}-title`;
  const troubles = problems([report]);
  const content = (value === null || value === undefined) && troubles.length ? [] : genericContent(value, { day, title });
  return h("section", { class: "card generic", id: `section-generic-${index}`, "data-section": name, "aria-labelledby": titleID },
    h("header", {}, h("h2", { id: titleID, text: title }), h("span", { class: "badges" }, badge(name, report))),
    troubles, content);
}
