// The dashboard: the day from /v1/today (a section without a card of its own in a generic card),
// task counts and lists, upcoming diensten; live updates over /v1/stream; the date in the URL
// (?date=YYYY-MM-DD). Writes: a task into the Tickedify
// inbox, a task ticked off or reopened, a plan slot moved to another hour or removed, a meal
// logged or deleted, and volunteers on the diensten a manager sees. Saved items open in place.
import {
  addTask, addVolunteer, completeTask, deleteFoodLog, followChanges, getJSON, KeyRequired, logFood, logMealInWords, movePlanItem,
  newIdempotencyKey, removePlanItem, removeVolunteer, reopenTask, storeKey, WriteFailed,
} from "./api.js";
import * as render from "./render.js";

const $ = (id) => document.getElementById(id);
// date: the day asked for (null = today in the gateway's timezone); shown: the day on screen.
// diensten: the list on screen and its section report; writes: how many writes have answered
// (a load that started before one must not put its older list back on screen).
// today: the gateway's today, as the last load without a date said. The rest is what is on screen.
const state = {
  date: null, shown: null, today: null, loading: null, pending: false, pendingRefresh: false, diensten: null, dienstenReport: null, dienstenDrawn: "",
  writes: 0, knowledge: null, knowledgeReport: null, day: null, list: "inbox", listTasks: null, listReport: null,
  nutrition: null, foodLogs: null,
};
// Per task id: {busy ("complete"|"reopen"), done (the write answered; until a load shows it), error, retry ({kind, key})}.
const taskStates = new Map();
// Per plan item id: {busy ("move"|"remove"), hour (where a move goes), error}.
const slotStates = new Map();
// Per food log id: {busy, error}. Per saved item id (opened in place): {busy, item, error}.
const logStates = new Map();
const openedItems = new Map();
// Per dienst id: {value (typed name), error (last refusal), busy ("add"|"remove"), retry ({name, key})}.
const drafts = new Map();
window.__daygate = { loadedAt: Date.now(), renders: 0 };

function dateFromURL() {
  const value = new URLSearchParams(location.search).get("date");
  return /^\d{4}-\d{2}-\d{2}$/.test(value || "") ? value : null;
}

function shift(date, days) {
  const moment = new Date(`${date}T12:00:00Z`);
  moment.setUTCDate(moment.getUTCDate() + days);
  return moment.toISOString().slice(0, 10);
}

function go(date) {
  const url = new URL(location.href);
  if (date) url.searchParams.set("date", date); else url.searchParams.delete("date");
  history.pushState({}, "", url);
  state.date = date;
  load();
}

function setBadges(sections) {
  for (const holder of document.querySelectorAll(".badges[data-for]")) {
    holder.replaceChildren(...holder.dataset.for.split(" ").map((name) => render.badge(name, sections[name])));
  }
}

function fill(id, nodes) { $(id).replaceChildren(...nodes); }

/**
 * The sections a card of this page's own shows (its badge, problems and value). Every other
 * section of the day gets a generic card built from its value alone (render.genericSection), so
 * a new backend's section is on the page without code of its own. A section the day reports but
 * whose value is not in the answer (it joins another section's list, `merge_into`) gets none.
 */
const OWN_CARDS = ["plan", "events", "subscribed", "counts", "tasks", "nutrition", "diensten", "knowledge"];
const GENERIC_CARDS = 12; // at most this many (the answer is untrusted)

function drawOtherSections(day) {
  const names = Object.keys(day.sections || {})
    .filter((name) => !OWN_CARDS.includes(name) && Object.hasOwn(day, name))
    .slice(0, GENERIC_CARDS);
  const cards = names.map((name, index) => render.genericSection(name, day.sections[name], day[name], { day: day.date, index }));
  for (const card of document.querySelectorAll("main > section.generic")) card.remove();
  document.querySelector("main").append(...cards);
}

/**
 * Asking again by itself. A section the gateway could not get from its backend (error,
 * timeout) or answered from an old copy (stale, or ok but still refreshing), and a load that
 * failed as a whole, are asked for again after a while (2 s, doubling to 30 s while it stays so).
 * Events alone do not do it: the gateway reports a backend's failure once over /v1/stream and
 * then backs off before it tries that backend again; the reload the report triggers comes
 * inside that backoff and gets the same error, and no event says when the backend answers again.
 */
const RETRY_FIRST = 2000;
const RETRY_MAX = 30000;
const retry = { timer: null, delay: RETRY_FIRST };

function unsettled(report) {
  if (!report) return false;
  return report.status === "error" || report.status === "timeout" || report.status === "stale"
    || (report.status === "ok" && report.cache === "stale");
}

function retryLater(needed) {
  clearTimeout(retry.timer);
  retry.timer = null;
  if (!needed) { retry.delay = RETRY_FIRST; return; }
  retry.timer = setTimeout(() => {
    retry.timer = null;
    retry.delay = Math.min(retry.delay * 2, RETRY_MAX); // longer next time, if this does not settle it
    load();
  }, retry.delay);
}

async function load({ refresh = false } = {}) {
  // A load on its way: another follows it, and a refresh asked for meanwhile (the Refresh
  // button) stays one, or the click would come back with the cached answer.
  if (state.loading) { state.pending = true; state.pendingRefresh ||= refresh; return state.loading; }
  clearTimeout(retry.timer);
  retry.timer = null;
  state.loading = (async () => {
    const writes = state.writes;
    let again = false;
    try {
      const query = state.date ? `?date=${state.date}` : "";
      const list = state.list;
      const [day, counts, upcoming, tasks, nutrition] = await Promise.all([
        getJSON(`/v1/today${query}`, { refresh }),
        getJSON("/v1/tasks/counts", { refresh }).catch(() => null),
        getJSON("/v1/diensten?past_days=0&future_days=30", { refresh }).catch(() => null),
        getJSON(list === "done" ? `/v1/tasks/done${query}` : `/v1/tasks?list=${list}`, { refresh }).catch((error) => ({ failed: error })),
        getJSON(`/v1/nutrition${query}`, { refresh }).catch(() => null),
      ]);
      state.shown = day.date;
      if (!state.date) state.today = day.date;
      $("date-input").value = day.date;
      document.title = `daygate — ${day.date}`;

      const sections = { ...day.sections, counts: counts?.sections?.counts, diensten: upcoming?.sections?.diensten ?? day.sections.diensten };
      setBadges(sections);
      fill("counts", [...render.problems([sections.counts]), ...render.counts(counts?.counts)]);
      if (state.writes === writes) {
        // Ticks answered before this load started are in what it got: forget them.
        for (const [id, task] of taskStates) if (task.done && !task.busy) taskStates.delete(id);
        for (const [id, log] of logStates) if (!log.busy && !log.error) logStates.delete(id);
        state.day = day;
        if (state.list === list) {
          state.listTasks = tasks.failed ? null : tasks.tasks;
          state.listReport = tasks.failed ? { error: { message: `Could not load the list: ${tasks.failed.message}` } } : tasks.sections?.tasks;
        }
        state.nutrition = day.nutrition;
        state.foodLogs = nutrition?.food_logs ?? null;
        state.mealLogs = nutrition?.meal_logs ?? null;
        drawTasks();
        drawNutrition();
      } else {
        state.pending = true; // a write answered meanwhile: what this load got may predate it
      }
      if (state.writes === writes) {
        state.diensten = upcoming?.diensten ?? day.diensten;
        state.dienstenReport = sections.diensten;
        drawDiensten();
      } else {
        state.pending = true; // a write answered meanwhile: this list may predate it
      }
      state.knowledge = day.knowledge;
      state.knowledgeReport = day.sections.knowledge;
      drawKnowledge();
      drawOtherSections(day);

      const all = Object.values(sections).filter(Boolean);
      const incomplete = all.filter((report) => report.status !== "ok");
      again = all.some(unsettled);
      $("banner").hidden = incomplete.length === 0;
      $("banner").textContent = incomplete.length
        ? `Incomplete: ${incomplete.length} section${incomplete.length > 1 ? "s" : ""} ${incomplete.length > 1 ? "are" : "is"} stale or unavailable — see the badges.`
        : "";
      $("updated").textContent = `Updated ${new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })}`;
      window.__daygate.renders += 1;
    } catch (error) {
      if (error instanceof KeyRequired) {
        // Refused with the key it was sent with. If another key was stored meanwhile (typed
        // while this load was on its way), the refusal is old news: load again, with that key.
        if (error.current) askForKey(); else state.pending = true;
        return;
      }
      again = true;
      $("banner").hidden = false;
      $("banner").textContent = `The gateway did not answer: ${error.message}`;
    } finally {
      state.loading = null;
      if (state.pending) {
        const next = { refresh: state.pendingRefresh };
        state.pending = false;
        state.pendingRefresh = false;
        load(next);
      } else retryLater(again);
    }
  })();
  return state.loading;
}

/**
 * Redraws `id` with `nodes` and puts the focus back where it was when the element that had it is
 * drawn again (same id), with the caret of a text box kept; otherwise on `fallback()`'s element.
 */
function fillKeepingFocus(id, nodes, fallback = () => null) {
  const holder = $(id);
  const focused = holder.contains(document.activeElement) ? document.activeElement : null;
  const focusedID = focused?.id;
  const selection = focused instanceof HTMLInputElement && focused.type === "text" ? [focused.selectionStart, focused.selectionEnd] : null;
  holder.replaceChildren(...nodes);
  if (!focused) return;
  const again = (focusedID && document.getElementById(focusedID)) || fallback();
  if (!again) return;
  again.focus({ preventScroll: true });
  if (selection && again instanceof HTMLInputElement) again.setSelectionRange(...selection);
}

/** The timeline and the task list, with each task's box as its write and refusal leave it. */
function drawTasks() {
  const day = state.day;
  if (day) {
    fillKeepingFocus("timeline", [...render.problems([day.sections.plan, day.sections.events, day.sections.subscribed]),
      ...render.timeline(day.date, day.plan, day.events, taskStates, slotStates)], () => $("timeline").querySelector("input.task-check, select.slot-hour"));
  }
  const completed = state.list === "done";
  const list = state.listTasks;
  fillKeepingFocus("task-list", [...render.problems([state.listReport]).map((p) => render.h("li", {}, p)),
    ...(list || !state.listReport ? render.taskList(list, taskStates, { completed }) : [])],
  () => $("task-list").querySelector("input.task-check") || $("task-list-choice"));
}

/**
 * Ticks a task off (its box in the timeline or a list) or, from the done list, reopens it. The
 * box shows the outcome at once and stays as the gateway answered: a refusal unticks it and is
 * shown under that task; the same Idempotency-Key goes with a retry after an unknown outcome.
 */
async function toggleTask(box) {
  const id = box.dataset.task;
  const title = box.dataset.title;
  const kind = box.dataset.action === "reopen-task" ? "reopen" : "complete";
  const task = taskStates.get(id) || {};
  if (task.busy) return;
  taskStates.set(id, task);
  if (task.retry?.kind !== kind) task.retry = { kind, key: newIdempotencyKey() };
  task.busy = kind;
  task.error = "";
  task.done = false;
  drawTasks();
  let answered = false;
  try {
    if (kind === "reopen") await reopenTask(id, task.retry.key); else await completeTask(id, task.retry.key);
    task.retry = null;
    task.done = true;
    answered = true;
    state.writes += 1;
    announce("tasks-status", kind === "reopen" ? `Moved “${title}” back to the inbox.` : `Done: “${title}”.`);
  } catch (error) {
    task.error = refusal(error);
    if (!(error instanceof WriteFailed && error.unknownOutcome)) task.retry = null;
  } finally {
    task.busy = null;
    drawTasks();
  }
  if (answered) load();
}

/**
 * Moves a slot of the day's plan to the hour its select now shows (at the end of that hour), or
 * takes it off the plan. The timeline shows the outcome at once (the slot at its new hour, or
 * gone) and the reload brings Tickedify's plan; a refusal puts the slot back and is shown under
 * it. Neither write takes an Idempotency-Key: both are the same whenever repeated.
 */
async function changeSlot(control, kind) {
  const id = control.dataset.item;
  const title = control.dataset.title;
  const slot = slotStates.get(id) || {};
  if (slot.busy) { drawTasks(); return; } // a select changed while its write is on its way: put it back
  slotStates.set(id, slot);
  const hour = kind === "move" ? Number(control.value) : null;
  Object.assign(slot, { busy: kind, hour, error: "" });
  drawTasks();
  let answered = false;
  try {
    if (kind === "move") await movePlanItem(id, hour); else await removePlanItem(id, state.day?.date);
    answered = true;
    state.writes += 1;
    const plan = state.day?.plan || [];
    const moved = kind === "move" ? plan.map((item) => (item.id === id ? { ...item, hour, position: Number.MAX_SAFE_INTEGER } : item)) : plan.filter((item) => item.id !== id);
    if (state.day) state.day = { ...state.day, plan: moved };
    slotStates.delete(id);
    announce("tasks-status", kind === "move" ? `Moved “${title}” to ${String(hour).padStart(2, "0")}:00.` : `Took “${title}” off the plan.`);
  } catch (error) {
    slot.error = refusal(error);
  } finally {
    slot.busy = null;
    slot.hour = null;
    drawTasks();
  }
  if (answered) load();
}

function followTaskControls() {
  for (const id of ["timeline", "task-list"]) {
    // A box whose write is on its way does not toggle (a click or Space is cancelled).
    $(id).addEventListener("click", (event) => {
      if (event.target.closest("input.task-check[aria-disabled=true]")) event.preventDefault();
      const remove = event.target.closest("button[data-action=remove-slot]");
      if (remove && remove.getAttribute("aria-disabled") !== "true") changeSlot(remove, "remove");
    });
    $(id).addEventListener("change", (event) => {
      const box = event.target.closest("input[data-action=complete-task], input[data-action=reopen-task]");
      if (box) toggleTask(box);
      const hour = event.target.closest("select[data-action=move-slot]");
      if (hour) changeSlot(hour, "move");
    });
  }
  $("task-list-choice").addEventListener("change", (event) => {
    state.list = event.target.value;
    state.listTasks = null;
    state.listReport = null;
    drawTasks();
    load();
  });
}

/**
 * Nutrition: the ring and the food logged on the day (each can be deleted), and "Log a meal":
 * search FitIQ's foods by name, pick one, servings and meal, log. The ring moves at once by what
 * was logged or deleted (the food's kcal and macros per serving times the servings); the next
 * load brings FitIQ's own figures.
 */
const meal = { foods: [], picked: null, searched: "", timer: null, asked: 0, busy: false, retry: null };

function drawNutrition() {
  const day = state.day;
  fill("nutrition", [...render.problems([day?.sections.nutrition]), ...render.nutrition(state.nutrition)]);
  fillKeepingFocus("food-logs", render.foodLogs(state.foodLogs, logStates), () => $("meal-log").querySelector("summary"));
  fill("meal-logs", render.mealLogs(state.mealLogs));
  const loggable = !state.date || state.date === state.today;
  $("meal-log").hidden = !loggable;
  followProcessingMeals();
}

/**
 * While FitIQ works out a meal logged in words, the page asks again every few seconds (the
 * gateway keeps such an answer fresh only until FitIQ expects it done), at most 20 times.
 */
const mealPoll = { timer: null, tries: 0 };
function followProcessingMeals() {
  const processing = (state.mealLogs || []).some((item) => item.status === "processing");
  if (!processing) { mealPoll.tries = 0; return; }
  if (mealPoll.timer || mealPoll.tries >= 20) return;
  mealPoll.tries += 1;
  mealPoll.timer = setTimeout(() => { mealPoll.timer = null; load(); }, 3000);
}

/** Moves the ring by `servings` of `food` (negative to take it back). */
function adjustNutrition(food, servings) {
  const now = state.nutrition;
  if (!now) return;
  const add = (value, per) => (value ?? 0) + (per ?? 0) * servings;
  const calories = Math.round(add(now.calories, food.calories));
  state.nutrition = {
    ...now, calories, protein_g: add(now.protein_g, food.protein_g), carbs_g: add(now.carbs_g, food.carbs_g), fat_g: add(now.fat_g, food.fat_g),
    remaining_calories: now.goal_calories != null ? now.goal_calories - calories : now.remaining_calories,
  };
}

function drawFoods(message = "") {
  const nodes = render.foodResults(meal.foods, meal.picked);
  if (message) nodes.unshift(render.h("li", { class: "empty", text: message }));
  fillKeepingFocus("food-results", nodes, () => $("food-query"));
}

/** Foods by name, or by barcode when the box holds 8 to 14 digits (a barcode FitIQ does not know: none). */
async function searchFoods(query) {
  const asked = ++meal.asked;
  const barcode = /^\d{8,14}$/.test(query);
  try {
    let foods;
    if (barcode) {
      foods = await getJSON(`/v1/foods/barcode/${query}`).then((answer) => [answer.food], (error) => {
        if (error.code === "not_found") return [];
        throw error;
      });
    } else {
      foods = (await getJSON(`/v1/foods/search?q=${encodeURIComponent(query)}`)).foods;
    }
    if (asked !== meal.asked) return; // a later search is on its way
    meal.foods = (foods || []).filter(Boolean);
    meal.searched = query;
    if (!meal.foods.some((food) => food.id === meal.picked)) meal.picked = meal.foods.length === 1 ? meal.foods[0].id : null;
    drawFoods(meal.foods.length ? "" : barcode ? `FitIQ knows no food with barcode ${query}.` : `No food found for “${query}”.`);
  } catch (error) {
    if (asked !== meal.asked) return;
    if (error instanceof KeyRequired && error.current) askForKey();
    meal.foods = [];
    drawFoods(`Could not search: ${error.message}`);
  }
}

/** The meal the time of day suggests (the browser's clock; only a default). */
function mealNow() {
  const hour = new Date().getHours();
  return hour < 11 ? "breakfast" : hour < 15 ? "lunch" : hour < 17 ? "snack" : hour < 22 ? "dinner" : "snack";
}

function followMealForm() {
  const form = $("meal-form");
  const query = $("food-query");
  const showError = (text) => { $("meal-error").textContent = text; };
  $("meal-log").addEventListener("toggle", () => { if ($("meal-log").open) { $("meal-type").value = mealNow(); query.focus(); } });
  query.addEventListener("input", () => {
    clearTimeout(meal.timer);
    const text = query.value.trim();
    showError("");
    if (text.length < 2) { meal.asked += 1; meal.foods = []; meal.picked = null; drawFoods(); return; }
    meal.timer = setTimeout(() => searchFoods(text), 250);
  });
  $("food-results").addEventListener("change", (event) => { if (event.target.name === "food") meal.picked = event.target.value; });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (meal.busy) return;
    showError("");
    const food = meal.foods.find((item) => item.id === meal.picked);
    const servings = Number($("meal-servings").value);
    const mealType = $("meal-type").value;
    if (!food) { showError(meal.foods.length ? "Pick a food first." : "Search for a food first."); query.focus(); return; }
    if (!(servings >= 0.01 && servings <= 100)) { showError("Servings: at least 0.01, at most 100."); $("meal-servings").focus(); return; }
    const attempt = `${food.id}|${servings}|${mealType}`;
    if (meal.retry?.attempt !== attempt) meal.retry = { attempt, key: newIdempotencyKey() };
    const button = $("meal-submit");
    meal.busy = true;
    button.disabled = true;
    form.setAttribute("aria-busy", "true");
    let answered = false;
    try {
      await logFood(food, servings, mealType, meal.retry.key);
      meal.retry = null;
      answered = true;
      state.writes += 1;
      adjustNutrition(food, servings);
      drawNutrition();
      announce("nutrition-status", `Logged ${servings === 1 ? "" : `${servings} × `}${food.name} (${mealType}).`);
      query.value = "";
      meal.foods = [];
      meal.picked = null;
      $("meal-servings").value = "1";
      drawFoods();
    } catch (error) {
      showError(refusal(error));
      if (!(error instanceof WriteFailed && error.unknownOutcome)) meal.retry = null;
    } finally {
      meal.busy = false;
      button.disabled = false;
      form.removeAttribute("aria-busy");
      if (focusLost()) query.focus();
    }
    if (answered) load();
  });
  const words = { busy: false, retry: null };
  $("meal-words-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (words.busy) return;
    const input = $("meal-words");
    const text = input.value.trim();
    const mealType = $("meal-type").value;
    $("meal-words-error").textContent = "";
    if (!text) { $("meal-words-error").textContent = "Say what you ate first."; input.focus(); return; }
    const attempt = `${text}|${mealType}`;
    if (words.retry?.attempt !== attempt) words.retry = { attempt, key: newIdempotencyKey() };
    const button = $("meal-words-submit");
    words.busy = true;
    button.disabled = true;
    let answered = false;
    try {
      const answer = await logMealInWords(text, mealType, words.retry.key);
      words.retry = null;
      answered = true;
      state.writes += 1;
      state.mealLogs = [...(state.mealLogs || []), answer.meal];
      drawNutrition();
      announce("nutrition-status", `Logged “${text}” (${mealType}); FitIQ is working out the calories.`);
      input.value = "";
    } catch (error) {
      $("meal-words-error").textContent = refusal(error);
      if (!(error instanceof WriteFailed && error.unknownOutcome)) words.retry = null;
    } finally {
      words.busy = false;
      button.disabled = false;
      if (focusLost()) input.focus();
    }
    if (answered) load();
  });
  $("food-logs").addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-action=delete-food-log]");
    if (!button || button.disabled) return;
    const id = button.dataset.log;
    const log = (state.foodLogs || []).find((item) => item.id === id);
    const entry = { busy: true, error: "" };
    logStates.set(id, entry);
    drawNutrition();
    let answered = false;
    try {
      await deleteFoodLog(id);
      answered = true;
      state.writes += 1;
      state.foodLogs = (state.foodLogs || []).filter((item) => item.id !== id);
      if (log) adjustNutrition({ calories: log.calories, protein_g: log.protein_g, carbs_g: log.carbs_g, fat_g: log.fat_g }, -1);
      announce("nutrition-status", `Deleted ${button.dataset.name}.`);
    } catch (error) {
      entry.error = refusal(error);
    } finally {
      entry.busy = false;
      drawNutrition();
    }
    if (answered) load();
  });
}

/** Recently saved: the title opens the item in place (GET /v1/knowledge/items/{id}), again closes it. */
async function toggleItem(id) {
  if (openedItems.has(id)) {
    if (!openedItems.get(id).busy) openedItems.delete(id);
    drawKnowledge();
    return;
  }
  const entry = { busy: true, item: null, error: "" };
  openedItems.set(id, entry);
  drawKnowledge();
  try {
    entry.item = (await getJSON(`/v1/knowledge/items/${encodeURIComponent(id)}`)).item ?? null;
    if (!entry.item) entry.error = "The item could not be read.";
  } catch (error) {
    if (error instanceof KeyRequired && error.current) askForKey();
    entry.error = `Could not open it: ${error.message}`;
  } finally {
    entry.busy = false;
    drawKnowledge();
  }
}

/**
 * Recently saved: the newest items from /v1/today, then the pages after them, a click at a
 * time, from /v1/knowledge/recent (its next_cursor; null on the last page). The pages loaded
 * stay below the newest items when the day is loaded again.
 */
const KNOWLEDGE_PAGE = 5;
const more = { items: [], cursor: undefined, busy: false };

function drawKnowledge() {
  const shown = new Set((state.knowledge || []).map((item) => item.id));
  const items = [...(state.knowledge || []), ...more.items.filter((item) => !shown.has(item.id))];
  fillKeepingFocus("knowledge", [...render.problems([state.knowledgeReport]).map((p) => render.h("li", {}, p)), ...render.knowledge(items, openedItems)]);
  const button = $("knowledge-more");
  button.hidden = !(state.knowledge || []).length || more.cursor === null;
  button.disabled = more.busy;
  button.textContent = more.busy ? "Loading…" : "Load more";
}

async function loadMoreKnowledge() {
  if (more.busy) return;
  more.busy = true;
  drawKnowledge();
  try {
    // The first page's cursor (its items are the ones already shown), then the next page.
    if (more.cursor === undefined) {
      more.cursor = (await getJSON(`/v1/knowledge/recent?limit=${KNOWLEDGE_PAGE}`)).next_cursor ?? null;
    }
    if (more.cursor) {
      const page = await getJSON(`/v1/knowledge/recent?limit=${KNOWLEDGE_PAGE}&cursor=${encodeURIComponent(more.cursor)}`);
      more.items.push(...(page.items || []));
      more.cursor = page.next_cursor ?? null;
    }
    if (more.cursor === null) announce("knowledge-status", "Everything saved is shown.");
  } catch (error) {
    if (error instanceof KeyRequired && error.current) askForKey();
    announce("knowledge-status", `Could not load more: ${error.message}`);
  } finally {
    more.busy = false;
    drawKnowledge();
  }
}

/**
 * Redraws the club shifts when something on them changed (not on every load, so a name being
 * typed or a focused button is left alone), keeping what was typed and where the focus was.
 */
function drawDiensten({ force = false } = {}) {
  const now = Date.now();
  const list = state.diensten || [];
  const report = state.dienstenReport;
  const drawn = JSON.stringify([report?.error, report?.issues, list, list.map((dienst) => render.manageable(dienst, now)),
    [...drafts].map(([id, draft]) => [id, draft.error, draft.busy])]);
  if (!force && drawn === state.dienstenDrawn) return;
  state.dienstenDrawn = drawn;
  const dienstID = $("diensten").contains(document.activeElement) ? document.activeElement.closest("li[data-id]")?.dataset.id : null;
  fillKeepingFocus("diensten", [...render.problems([report]), ...render.diensten(state.diensten, { now, drafts })],
    () => dienstID && document.getElementById(`dienst-${dienstID}-name`));
}

/** Whether the focus fell out of the page (its element was disabled or redrawn), not moved on by the user. */
function focusLost() {
  return !document.activeElement || document.activeElement === document.body;
}

function draftFor(id) {
  if (!drafts.has(id)) drafts.set(id, { value: "", error: "", busy: null, retry: null });
  return drafts.get(id);
}

/** Says something in a status line (announced politely) and clears it after a while. */
const statusTimers = new Map();
function announce(id, text) {
  clearTimeout(statusTimers.get(id));
  $(id).textContent = text;
  statusTimers.set(id, setTimeout(() => { $(id).textContent = ""; }, 8000));
}

function refusal(error) {
  if (error instanceof KeyRequired) {
    if (error.current) askForKey();
    return "The gateway needs a key: enter it and try again.";
  }
  return error instanceof WriteFailed ? error.message : `Something went wrong: ${error.message}`;
}

/** Adds or removes one volunteer of a dienst; the answer's dienst is drawn at once. */
async function changeVolunteer(id, kind, name) {
  const draft = draftFor(id);
  if (draft.busy) return;
  const focusedID = document.activeElement?.id || "";
  const hadFocus = Boolean(document.activeElement?.closest?.(`#diensten li[data-id="${CSS.escape(id)}"]`));
  const dienst = (state.diensten || []).find((item) => item.id === id);
  const when = dienst ? render.dienstWhen(dienst) : "the shift";
  draft.busy = kind;
  draft.error = "";
  drawDiensten();
  let answered = false;
  try {
    let answer;
    if (kind === "add") {
      // The same key for a retry of the same name after an unknown outcome, a new one otherwise.
      if (draft.retry?.name !== name) draft.retry = { name, key: newIdempotencyKey() };
      answer = await addVolunteer(id, name, draft.retry.key);
      if (draft.value.trim() === name) draft.value = "";
    } else {
      answer = await removeVolunteer(id, name);
    }
    draft.retry = null;
    answered = true;
    state.writes += 1;
    if (answer?.dienst && state.diensten) {
      state.diensten = state.diensten.map((item) => (item.id === id ? { ...item, ...answer.dienst } : item));
    }
    announce("diensten-status", kind === "add" ? `Added ${name} to ${when}.` : `Removed ${name} from ${when}.`);
  } catch (error) {
    draft.error = refusal(error);
    if (!(error instanceof WriteFailed && error.unknownOutcome)) draft.retry = null;
  } finally {
    draft.busy = null;
    drawDiensten({ force: true });
    if (hadFocus && focusLost()) {
      const back = document.getElementById(focusedID);
      (back && !back.disabled ? back : document.getElementById(`dienst-${id}-name`))?.focus();
    }
  }
  if (answered) load();
}

function followDienstControls() {
  const holder = $("diensten");
  holder.addEventListener("input", (event) => {
    const form = event.target.closest("form[data-action=add-volunteer]");
    if (form) draftFor(form.dataset.dienst).value = event.target.value;
  });
  holder.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-action=add-volunteer]");
    if (!form) return;
    event.preventDefault();
    const id = form.dataset.dienst;
    const name = form.elements.name.value.trim();
    if (!name || [...name].length > 15) {
      const draft = draftFor(id);
      draft.error = name ? "A name is at most 15 characters." : "Type a name first.";
      drawDiensten();
      return;
    }
    changeVolunteer(id, "add", name);
  });
  holder.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action=remove-volunteer]");
    if (button && !button.disabled) changeVolunteer(button.dataset.dienst, "remove", button.dataset.name);
  });
}

/** The "Add task" box: one task per submit, the button off while it is on its way. */
function followTaskForm() {
  const form = $("task-form");
  const input = $("task-title");
  const button = $("task-submit");
  let retry = null; // {title, key}: kept after an unknown outcome, so a retry cannot add twice
  const showError = (text) => {
    $("task-error").textContent = text;
    if (text) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (button.disabled) return;
    const title = input.value.trim();
    showError("");
    if (!title) { showError("Type a title first."); input.focus(); return; }
    if (retry?.title !== title) retry = { title, key: newIdempotencyKey() };
    const hadFocus = form.contains(document.activeElement);
    button.disabled = true;
    form.setAttribute("aria-busy", "true");
    let answered = false;
    try {
      const answer = await addTask(title, retry.key);
      retry = null;
      answered = true;
      if (input.value.trim() === title) input.value = "";
      announce("task-status", `Added “${answer?.task?.title || title}” to the inbox.`);
    } catch (error) {
      showError(refusal(error));
      if (!(error instanceof WriteFailed && error.unknownOutcome)) retry = null;
    } finally {
      button.disabled = false;
      form.removeAttribute("aria-busy");
      if (hadFocus && focusLost()) input.focus();
    }
    if (answered) load();
  });
}

function askForKey() {
  const dialog = $("key-dialog");
  if (dialog.open) return;
  dialog.showModal();
}

let debounce = null;
function onChange() {
  clearTimeout(debounce);
  debounce = setTimeout(() => load(), 300);
}

function start() {
  state.date = dateFromURL();
  $("prev-day").addEventListener("click", () => state.shown && go(shift(state.shown, -1)));
  $("next-day").addEventListener("click", () => state.shown && go(shift(state.shown, 1)));
  $("today").addEventListener("click", () => go(null));
  $("date-input").addEventListener("change", (event) => { if (event.target.value) go(event.target.value); });
  $("refresh").addEventListener("click", () => load({ refresh: true }));
  $("knowledge-more").addEventListener("click", loadMoreKnowledge);
  $("knowledge").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action=toggle-item]");
    if (button) toggleItem(button.dataset.item);
  });
  $("key-form").addEventListener("submit", () => {
    const key = $("key-input").value.trim();
    if (key) { storeKey(key); load(); connect(); }
  });
  window.addEventListener("popstate", () => { state.date = dateFromURL(); load(); });
  followTaskForm();
  followTaskControls();
  followMealForm();
  followDienstControls();
  load();
  connect();
  // Between change events, keep freshness badges honest.
  setInterval(() => { if (!document.hidden) load(); }, 60000);
}

let stopFollowing = null;
function connect() {
  stopFollowing?.();
  stopFollowing = followChanges((name, data) => {
    if (name === "change") onChange();
    else if (name === "hello") onChange();
    else if (name === "key-required" && data.error?.current) askForKey();
  }, (live) => {
    $("live").dataset.state = live;
    $("live").textContent = live === "live" ? "live" : live === "connecting" ? "connecting…" : "reconnecting…";
  });
}

start();
