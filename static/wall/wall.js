// The wall: every household member's day on one screen, read from three metres, for a display
// that only reads (a key with scopes [read, household]). It follows /v1/household/stream, keeps
// the last day it had (in memory and in localStorage) and shows it with its age when the gateway
// or the network is gone, dims between the household's night hours, and never grows: every
// render replaces what the last one drew, and nothing is kept but the latest answer. What goes
// where is decided by layout.js (pure, tested without a browser); this draws it and picks the
// first of its layouts that fits the screen.
import { getJSON, storeKey, followChanges, KeyRequired } from "/api.js";
import { SHARED_COLOR, clockText, fitSteps, layoutDay, local, minuteText, rowHeights, shiftsOf } from "/wall/layout.js";

const LAST_STORAGE = "daygate.wall.last";
const DAY_PATH = "/v1/household/today";

const state = {
  answer: null, // the latest household answer
  fetchedAt: 0, // when it arrived (ms)
  failing: false, // the latest fetch failed
  timer: null,
  retry: 2000,
  more: [], // the items of each "+N" box drawn, by its index
  fitted: { key: "", step: 0 }, // the first layout step that fitted, for this answer and screen
};

const $ = (id) => document.getElementById(id);

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function zoneOf(answer) { return answer?.timezone || Intl.DateTimeFormat().resolvedOptions().timeZone; }

/** The answer's day as words ("Friday 27 November"); the date itself names the day. */
function dayText(day) {
  const [y, m, d] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(undefined, { timeZone: "UTC", weekday: "long", day: "numeric", month: "long" })
    .format(new Date(Date.UTC(y, m - 1, d, 12)));
}

// MARK: - Rendering

/** The steps the cards' type takes down when they would not fit (of the page's type). */
const CARD_SCALES = [1, 0.9, 0.8, 0.7, 0.6];

/** The first rows of the timeline grid: the lane names, then the all-day items. */
const HEAD_ROWS = 2;

function itemNode(item, past) {
  const node = element("li", `item ${item.kind}`);
  node.append(element("span", "item-time", item.time), element("span", "item-title", item.title));
  if (item.detail) node.append(element("span", "item-detail", item.detail));
  if (past) node.classList.add("past");
  return node;
}

function moreNode(item, past) {
  const node = element("li", "item more");
  const button = element("button", "more-button");
  button.type = "button";
  button.dataset.more = String(state.more.length);
  state.more.push(item.items);
  button.setAttribute("aria-haspopup", "dialog");
  button.append(
    element("span", "item-time", `${minuteText(item.start)}–${minuteText(item.end)}`),
    element("span", "item-title", `+${item.items.length} items`));
  button.setAttribute("aria-label", `${item.items.length} items from ${minuteText(item.start)}: show them`);
  node.append(button);
  if (past) node.classList.add("past");
  return node;
}

/** Draws the timeline as `layout` (layout.js) decides: one grid whose rows every lane shares.
 * True when it fits the screen. */
function drawLanes(layout, answer, today) {
  const { rows, hours, lanes, now } = layout;
  state.more = [];
  const isToday = answer.date === today.day;
  const nodes = [];
  const axis = element("div", "axis");
  axis.setAttribute("aria-hidden", "true");
  for (const mark of hours) {
    const label = element("span", "hour", mark.minute >= 24 * 60 ? "24:00" : minuteText(mark.minute));
    const end = mark.row >= rows.length;
    // Both lines: an absolutely placed item's missing end line would be the grid's edge.
    const row = HEAD_ROWS + 1 + (end ? rows.length - 1 : mark.row);
    label.style.gridRow = `${row} / ${row + 1}`;
    if (end) label.classList.add("at-end");
    if (mark.row === 0) label.classList.add("at-start");
    axis.append(label);
  }
  nodes.push(axis);
  lanes.forEach((lane, index) => {
    const section = element("section", "lane");
    section.style.gridColumn = String(index + 2);
    section.style.setProperty("--c", lane.color || SHARED_COLOR);
    section.style.setProperty("--subcolumns", String(lane.subcolumns));
    section.setAttribute("aria-label", lane.name);
    section.append(element("h3", "lane-head", lane.name));
    if (lane.allDay.length) {
      const allDay = element("ul", "lane-all-day");
      allDay.setAttribute("aria-label", `${lane.name}: all day`);
      for (const item of lane.allDay) allDay.append(element("li", "chip", item.title));
      section.append(allDay);
    }
    const body = element("ol", "lane-body");
    for (const box of lane.boxes) {
      const items = box.item.kind === "more" ? box.item.items : [box.item];
      const past = isToday && items.every((item) => item.end <= today.minute);
      const node = box.item.kind === "more" ? moreNode(box.item, past) : itemNode(box.item, past);
      node.style.gridRow = `${box.rows[0] + 1} / ${box.rows[1] + 1}`;
      node.style.gridColumn = `${box.columns[0] + 1} / ${box.columns[1] + 1}`;
      body.append(node);
    }
    section.append(body);
    nodes.push(section);
  });
  if (now) {
    const line = element("div", "now-line");
    line.setAttribute("aria-hidden", "true");
    line.style.gridRow = `${HEAD_ROWS + 1 + now.row} / ${HEAD_ROWS + 2 + now.row}`;
    line.style.setProperty("--at-fraction", String(now.fraction));
    nodes.push(line);
  }
  const container = $("lanes");
  container.replaceChildren(...nodes);
  // Measured first: each lane's name on one line (a lane is never narrower than its name); then,
  // with every time row empty, each box as tall as its text at its width; then each row as tall
  // as `rowHeights` says.
  container.classList.add("measuring");
  container.style.gridTemplateRows = `repeat(${HEAD_ROWS}, auto) repeat(${rows.length}, 0px)`;
  const names = [...container.querySelectorAll(".lane-head")].map((head) => Math.ceil(head.getBoundingClientRect().width) + 1);
  container.style.gridTemplateColumns = `var(--axis-width) ${lanes.map((l, i) => `minmax(${names[i]}px, ${l.weight.toFixed(2)}fr)`).join(" ")}`;
  const bodies = [...container.querySelectorAll(".lane-body")];
  const boxes = [];
  lanes.forEach((lane, index) => {
    const drawn = bodies[index].children;
    lane.boxes.forEach((box, at) => {
      const node = drawn[at];
      const style = getComputedStyle(node);
      const need = node.offsetHeight + parseFloat(style.marginTop) + parseFloat(style.marginBottom) + 1;
      boxes.push({ rows: box.rows, need });
    });
  });
  const available = container.clientHeight - (bodies[0]?.offsetTop ?? 0);
  container.classList.remove("measuring");
  const sized = rowHeights(rows, boxes, available);
  container.style.gridTemplateRows = `repeat(${HEAD_ROWS}, auto) ${sized.heights.map((h) => `${h.toFixed(2)}px`).join(" ")}`;
  return sized.fits && container.scrollWidth <= container.clientWidth + 1;
}

/** Hour labels of rows squeezed together: of two that would touch, the earlier is left out (the
 * later one names where the items start), and so is one that would reach past the timeline. */
function thinHourLabels(container) {
  const labels = [...container.querySelectorAll(".axis .hour")];
  for (const label of labels) label.hidden = false;
  let nextTop = container.getBoundingClientRect().bottom + 2;
  for (const label of labels.reverse()) {
    const box = label.getBoundingClientRect();
    label.hidden = box.bottom > nextTop - 2;
    if (!label.hidden) nextTop = box.top;
  }
}

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

  // The first layout that fits the screen: full size, smaller type, then crowded hours as "+N".
  const container = $("lanes");
  const steps = fitSteps(answer, zone);
  const key = `${state.fetchedAt} ${innerWidth}x${innerHeight}`;
  let index = state.fitted.key === key ? state.fitted.step : 0;
  for (; index < steps.length; index++) {
    container.style.setProperty("--fit", String(steps[index].scale));
    const fits = drawLanes(layoutDay(answer, { zone, collapse: steps[index].collapse, nowDate: now }), answer, today);
    if (fits || index === steps.length - 1) break;
  }
  state.fitted = { key, step: Math.min(index, steps.length - 1) };
  container.dataset.fit = `${steps[state.fitted.step].scale} ${steps[state.fitted.step].collapse}`;
  thinHourLabels(container);

  const members = answer.members || [];
  const people = $("people");
  people.replaceChildren(...members.map((member) => personCard(member, answer, zone, now)));
  // The cards' type: the largest step at which every card holds its facts.
  for (const scale of CARD_SCALES) {
    people.style.setProperty("--card-fit", String(scale));
    const cut = people.scrollHeight > people.clientHeight + 1 || [...people.children].some((card) => card.scrollHeight > card.clientHeight + 1);
    if (!cut) break;
  }
  renderFreshness();
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
  // Their events (their own and those they share) and their shifts: what their lanes show.
  const shifts = shiftsOf(member, answer.date, zone);
  const theirs = [
    ...(answer.events || [])
      .filter((e) => !e.all_day && (e.member === member.id || (e.members || []).includes(member.id)))
      .map((e) => ({ start: new Date(e.start), end: new Date(e.end || e.start), title: e.title })),
    ...shifts.map(({ dienst, item }) => ({ start: new Date(dienst.start), end: new Date(dienst.end), title: item.title })),
  ].sort((a, b) => a.start - b.start);
  const current = theirs.find((e) => e.start <= now && e.end > now);
  const upcoming = theirs.find((e) => e.start > now);
  if (current) add("Now", `${current.title} until ${clockText(current.end, zone)}`);
  add("Next", upcoming ? `${clockText(upcoming.start, zone)} ${upcoming.title}` : "nothing more today");
  if (member.sections?.diensten || shifts.length) {
    // Every shift of the day their lane shows, the ones that are over said so.
    add("Shift", shifts.length
      ? shifts.map(({ dienst, item }) => `${item.time} ${dienst.type?.name || ""}`.trim() + (new Date(dienst.end) <= now ? " (over)" : "")).join(", ")
      : "none today");
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

/** A "+N" box opened: its items, each with its time and whole title. */
function openMore(index) {
  const items = state.more[index];
  if (!items) return;
  $("more-title").textContent = `${items.length} items`;
  $("more-list").replaceChildren(...items.map((item) => {
    const row = element("li", `more-item ${item.kind}`);
    row.append(element("span", "item-time", item.time), element("span", "item-title", item.title));
    if (item.detail) row.append(element("span", "item-detail", item.detail));
    return row;
  }));
  $("more-dialog").showModal();
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
  // One listener for every "+N" box, whatever is drawn later.
  $("lanes").addEventListener("click", (event) => {
    const button = event.target.closest?.("button.more-button");
    if (button) openMore(Number(button.dataset.more));
  });
  $("more-close").addEventListener("click", () => $("more-dialog").close());
  window.addEventListener("resize", () => render());
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
