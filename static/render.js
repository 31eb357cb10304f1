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
