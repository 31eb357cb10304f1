// The wall: every household member's day on one screen, read from three metres, for a display
// that only reads (a key with scopes [read, household]). It follows /v1/household/stream, keeps
// the last day it had (in memory and in localStorage) and shows it with its age when the gateway
// or the network is gone, dims between the household's night hours, and never grows: every
// render replaces what the last one drew, and nothing is kept but the latest answer.
import { getJSON, storeKey, followChanges, KeyRequired } from "/api.js";

const LAST_STORAGE = "daygate.wall.last";
const DAY_PATH = "/v1/household/today";
const HOURS = { first: 7, last: 22 };
/** The colour of what several members share (a calendar they all subscribe to). */
const SHARED_COLOR = "#868e96";

const state = {
  answer: null, // the latest household answer
  fetchedAt: 0, // when it arrived (ms)
  failing: false, // the latest fetch failed
  timer: null,
  retry: 2000,
};

const $ = (id) => document.getElementById(id);

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// MARK: - Time in the household's zone

function zoneOf(answer) { return answer?.timezone || Intl.DateTimeFormat().resolvedOptions().timeZone; }

function parts(date, zone) {
  const values = {};
  for (const part of new Intl.DateTimeFormat("en-GB", {
    timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
  }).formatToParts(date)) values[part.type] = part.value;
  return values;
}

/** Minutes after local midnight of `date` in `zone`, and the local day (YYYY-MM-DD). */
function local(date, zone) {
  const p = parts(date, zone);
  return { day: `${p.year}-${p.month}-${p.day}`, minute: Number(p.hour) * 60 + Number(p.minute) };
}

function clockText(date, zone) {
  return new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(date);
}

/** The answer's day as words ("Friday 27 November"); the date itself names the day. */
function dayText(day) {
  const [y, m, d] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(undefined, { timeZone: "UTC", weekday: "long", day: "numeric", month: "long" })
    .format(new Date(Date.UTC(y, m - 1, d, 12)));
}

/** Minutes of an item's time within the answer's day: before it 0, after it 24 h. */
function minuteOn(iso, day, zone) {
  const at = local(new Date(iso), zone);
  if (at.day < day) return 0;
  if (at.day > day) return 24 * 60;
  return at.minute;
}

// MARK: - What each member has

function membersOf(answer) { return answer?.members || []; }

/** Timed items of one lane: {start, end (minutes), title, kind, detail}. */
function laneItems(answer, laneMembers, zone) {
  const items = [];
  const day = answer.date;
  for (const event of answer.events || []) {
    if (event.all_day) continue;
    const owners = event.members || (event.member ? [event.member] : []);
    const shared = owners.length > 1;
    if (laneMembers === "shared" ? !shared : shared || owners[0] !== laneMembers) continue;
    items.push({
      start: minuteOn(event.start, day, zone), end: minuteOn(event.end || event.start, day, zone),
      title: event.title, kind: "event", detail: event.location || "",
    });
  }
  if (laneMembers === "shared") return items;
  const member = membersOf(answer).find((m) => m.id === laneMembers);
  let offset = {};
  for (const slot of member?.plan || []) {
    if (typeof slot.hour !== "number") continue;
    const start = slot.hour * 60 + (offset[slot.hour] || 0);
    const length = Math.max(10, slot.duration_minutes || 30);
    offset[slot.hour] = (offset[slot.hour] || 0) + length;
    items.push({ start, end: start + length, title: slot.title || "Task", kind: slot.kind === "task" ? "task" : "slot", detail: "" });
  }
  for (const dienst of member?.diensten || []) {
    items.push({
      start: minuteOn(dienst.start, day, zone), end: minuteOn(dienst.end, day, zone),
      title: `Shift: ${dienst.type?.name || "canteen"}`, kind: "dienst", detail: [dienst.location, dienst.tenant].filter(Boolean).join(" · "),
    });
  }
  return items.filter((item) => item.end > item.start || item.kind !== "event");
}

/** The window of hours shown: 07:00–22:00, widened to what the day holds. */
function hoursShown(answer, zone) {
  let first = HOURS.first * 60;
  let last = HOURS.last * 60;
  for (const lane of ["shared", ...membersOf(answer).map((m) => m.id)]) {
    for (const item of laneItems(answer, lane, zone)) {
      first = Math.min(first, Math.floor(item.start / 60) * 60);
      last = Math.max(last, Math.ceil(Math.max(item.end, item.start + 30) / 60) * 60);
    }
  }
  return { first: Math.max(0, first), last: Math.min(24 * 60, last) };
}

/** Side-by-side columns for items that overlap. */
function columns(items) {
  const sorted = [...items].sort((a, b) => a.start - b.start || b.end - a.end);
  const ends = [];
  for (const item of sorted) {
    let column = ends.findIndex((end) => end <= item.start);
    if (column < 0) { column = ends.length; ends.push(0); }
    ends[column] = Math.max(item.end, item.start + 30);
    item.column = column;
  }
  for (const item of sorted) item.columns = ends.length;
  return sorted;
}

// MARK: - Rendering

function render() {
  const answer = state.answer;
  if (!answer) return;
  const zone = zoneOf(answer);
  const now = new Date();
  const today = local(now, zone);
  $("wall-title").textContent = answer.household?.name ? `${answer.household.name}` : "The household's day";
  $("wall-date").textContent = dayText(answer.date);
  $("wall-clock").textContent = clockText(now, zone);
  document.body.classList.toggle("night", isNight(answer.household?.night, today.minute));

  const members = membersOf(answer);
  const hours = hoursShown(answer, zone);
  const span = hours.last - hours.first;
  const lanes = [];
  const axis = element("div", "lane axis");
  axis.setAttribute("aria-hidden", "true");
  axis.append(element("div", "lane-head", ""));
  const axisBody = element("div", "lane-body");
  for (let minute = hours.first; minute <= hours.last; minute += 60) {
    const mark = element("span", "hour", `${String(minute / 60).padStart(2, "0")}:00`);
    mark.style.setProperty("--at", `${((minute - hours.first) / span) * 100}%`);
    axisBody.append(mark);
  }
  axis.append(axisBody);
  lanes.push(axis);
  const laneSpecs = [];
  if ((answer.events || []).some((e) => (e.members || []).length > 1)) laneSpecs.push({ id: "shared", name: "Everyone", color: SHARED_COLOR });
  for (const member of members) laneSpecs.push({ id: member.id, name: member.name, color: member.color });
  const weights = [];
  for (const spec of laneSpecs) {
    const lane = element("section", "lane");
    lane.style.setProperty("--c", spec.color);
    lane.setAttribute("aria-label", spec.name);
    lane.append(element("h3", "lane-head", spec.name));
    const body = element("ol", "lane-body");
    const placed = columns(laneItems(answer, spec.id, zone));
    // A lane whose items stand side by side gets more room.
    weights.push(1 + 0.7 * Math.max(0, (placed[0]?.columns || 1) - 1));
    for (const item of placed) {
      if (item.end <= hours.first || item.start >= hours.last) continue;
      const start = Math.max(item.start, hours.first);
      const end = Math.min(Math.max(item.end, item.start + 20), hours.last);
      const node = element("li", `item ${item.kind}`);
      node.style.setProperty("--top", `${((start - hours.first) / span) * 100}%`);
      node.style.setProperty("--height", `${((end - start) / span) * 100}%`);
      node.style.setProperty("--column", item.column);
      node.style.setProperty("--columns", item.columns);
      node.append(element("span", "item-time", minuteText(item.start)), element("span", "item-title", item.title));
      if (item.detail) node.append(element("span", "item-detail", item.detail));
      if (answer.date === today.day && item.end <= today.minute) node.classList.add("past");
      body.append(node);
    }
    lane.append(body);
    lanes.push(lane);
  }
  if (answer.date === today.day && today.minute >= hours.first && today.minute <= hours.last) {
    const line = element("div", "now-line");
    line.setAttribute("aria-hidden", "true");
    line.style.setProperty("--at-fraction", String((today.minute - hours.first) / span));
    lanes.push(line);
  }
  $("lanes").replaceChildren(...lanes);
  $("lanes").style.gridTemplateColumns = `4.2rem ${weights.map((w) => `minmax(0, ${w.toFixed(2)}fr)`).join(" ")}`;

  const allDay = (answer.events || []).filter((e) => e.all_day).map((event) => {
    const owners = event.members || [event.member];
    const chip = element("span", "chip", event.title);
    const first = members.find((m) => m.id === owners[0]);
    chip.style.setProperty("--c", owners.length > 1 ? SHARED_COLOR : first?.color || SHARED_COLOR);
    return chip;
  });
  $("all-day").replaceChildren(...allDay);
  $("all-day").hidden = allDay.length === 0;

  $("people").replaceChildren(...members.map((member) => personCard(member, answer, zone, now)));
  renderFreshness();
}

function minuteText(minute) {
  const m = Math.max(0, Math.min(24 * 60 - 1, Math.round(minute)));
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}

function isNight(night, minute) {
  const match = /^(\d\d):(\d\d)-(\d\d):(\d\d)$/.exec(night || "");
  if (!match) return false;
  const from = Number(match[1]) * 60 + Number(match[2]);
  const to = Number(match[3]) * 60 + Number(match[4]);
  return from < to ? minute >= from && minute < to : minute >= from || minute < to;
}

function personCard(member, answer, zone, now) {
  const card = element("article", "person");
  card.style.setProperty("--c", member.color);
  card.append(element("h3", "person-name", member.name));
  const facts = element("dl", "facts");
  const add = (term, value) => {
    if (value === null || value === undefined || value === "") return;
    facts.append(element("dt", "", term), element("dd", "", value));
  };
  const theirs = (answer.events || [])
    .filter((e) => !e.all_day && (e.member === member.id || (e.members || []).includes(member.id)))
    .sort((a, b) => new Date(a.start) - new Date(b.start));
  const current = theirs.find((e) => new Date(e.start) <= now && new Date(e.end || e.start) > now);
  const upcoming = theirs.find((e) => new Date(e.start) > now);
  if (current) add("Now", `${current.title} until ${clockText(new Date(current.end), zone)}`);
  add("Next", upcoming ? `${clockText(new Date(upcoming.start), zone)} ${upcoming.title}` : "nothing more today");
  const shifts = (member.diensten || []).filter((d) => new Date(d.end) > now);
  if (member.sections?.diensten) {
    add("Shift", shifts.length ? shifts.map((d) => `${clockText(new Date(d.start), zone)}–${clockText(new Date(d.end), zone)} ${d.type?.name || ""}`.trim()).join(", ") : "none today");
  }
  if (member.tasks && typeof member.tasks === "object") {
    const open = (member.tasks.inbox || 0) + (member.tasks.acties || 0);
    add("Open tasks", String(open));
  }
  if (member.nutrition && typeof member.nutrition.calories === "number") {
    const goal = member.nutrition.goal_calories;
    add("Eaten", goal ? `${member.nutrition.calories} of ${goal} kcal` : `${member.nutrition.calories} kcal`);
  }
  const troubled = Object.entries(member.sections || {}).filter(([, report]) => report.status !== "ok").map(([name]) => name);
  card.append(facts);
  if (troubled.length) card.append(element("p", "person-note", `not current: ${troubled.join(", ")}`));
  return card;
}

function renderFreshness() {
  const answer = state.answer;
  if (!answer) return;
  const zone = zoneOf(answer);
  const at = new Date(state.fetchedAt);
  const minutes = Math.floor((Date.now() - state.fetchedAt) / 60000);
  const note = $("freshness");
  if (state.failing) {
    note.textContent = `offline — showing ${clockText(at, zone)} (${minutes} min ago)`;
    note.dataset.state = "offline";
  } else {
    const stale = answer.stale || !answer.complete;
    note.textContent = `updated ${clockText(at, zone)}${stale ? " · some parts not current" : ""}`;
    note.dataset.state = stale ? "stale" : "live";
  }
}

// MARK: - Loading

function askForKey(why) {
  $("key-why").textContent = why;
  $("key-form").hidden = false;
  $("key-input").focus();
}

async function load() {
  clearTimeout(state.timer);
  try {
    // Today by default: after midnight the gateway's default is the new day.
    const answer = await getJSON(DAY_PATH);
    // The browser keeps a timing entry per request (up to 250): a page that runs for days has
    // no use for them.
    performance.clearResourceTimings?.();
    if (!Array.isArray(answer.members)) throw new Error("not a household answer");
    state.answer = answer;
    state.fetchedAt = Date.now();
    state.failing = false;
    state.retry = 2000;
    $("key-form").hidden = true;
    try { localStorage.setItem(LAST_STORAGE, JSON.stringify({ answer, fetchedAt: state.fetchedAt })); } catch { /* full or private */ }
    render();
    state.timer = setTimeout(load, 5 * 60 * 1000);
  } catch (error) {
    state.failing = true;
    if (error instanceof KeyRequired) {
      askForKey("This display needs a client key with the household scope.");
    } else if (error.status === 403) {
      askForKey("This key cannot read the household: it needs scopes [read, household].");
    } else if (error.status === 404) {
      askForKey("The gateway has no household configured (household: in daygate.yaml).");
    }
    renderFreshness();
    state.timer = setTimeout(load, state.retry);
    state.retry = Math.min(state.retry * 2, 60000);
  }
}

let pending = null;
function changed() {
  clearTimeout(pending);
  pending = setTimeout(load, 800);
}

/** A key given in the address (`/wall#key=…`, typed once when the tablet is set up): stored
 * like a typed one, and taken out of the address so it is not left in the history. */
function keyFromAddress() {
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  if (!key) return false;
  storeKey(key);
  history.replaceState(null, "", location.pathname + location.search);
  return true;
}

function start() {
  keyFromAddress();
  window.addEventListener("hashchange", () => { if (keyFromAddress()) load(); });
  try {
    const kept = JSON.parse(localStorage.getItem(LAST_STORAGE) || "null");
    if (kept?.answer?.members) {
      state.answer = kept.answer;
      state.fetchedAt = kept.fetchedAt;
      state.failing = true;
      render();
    }
  } catch { /* nothing kept */ }
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = $("key-input").value.trim();
    if (!key) return;
    storeKey(key);
    $("key-input").value = "";
    load();
  });
  // A change: load the day again. The stream back after the gateway or the network was gone:
  // load at once rather than at the next retry.
  // A change: load the day again. The stream lost: ask at once, so the wall says it is offline
  // (and keeps the day it has). The stream back: load at once rather than at the next retry.
  followChanges(
    (name) => { if (name === "change") changed(); },
    (stream) => {
      if ((stream === "live" && state.failing) || (stream === "offline" && !state.failing)) changed();
    },
    "/v1/household/stream");
  // The clock, the now-line and the night every 20 s; a new day when the household's date turns.
  setInterval(() => {
    if (!state.answer) return;
    if (!state.failing && local(new Date(), zoneOf(state.answer)).day !== state.answer.date) { load(); return; }
    render();
  }, 20000);
  load();
}

start();
