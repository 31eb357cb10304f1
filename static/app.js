// The dashboard: the day from /v1/today, task counts, upcoming diensten; live updates over
// /v1/stream; the date in the URL (?date=YYYY-MM-DD).
import { followChanges, getJSON, KeyRequired, storeKey } from "./api.js";
import * as render from "./render.js";

const $ = (id) => document.getElementById(id);
// date: the day asked for (null = today in the gateway's timezone); shown: the day on screen.
const state = { date: null, shown: null, loading: null, pending: false };
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
  for (const holder of document.querySelectorAll(".badges")) {
    holder.replaceChildren(...holder.dataset.for.split(" ").map((name) => render.badge(name, sections[name])));
  }
}

function fill(id, nodes) { $(id).replaceChildren(...nodes); }

async function load({ refresh = false } = {}) {
  if (state.loading) { state.pending = true; return state.loading; }
  state.loading = (async () => {
    try {
      const query = state.date ? `?date=${state.date}` : "";
      const [day, counts, upcoming] = await Promise.all([
        getJSON(`/v1/today${query}`, { refresh }),
        getJSON("/v1/tasks/counts", { refresh }).catch(() => null),
        getJSON("/v1/diensten?past_days=0&future_days=30", { refresh }).catch(() => null),
      ]);
      state.shown = day.date;
      $("date-input").value = day.date;
      document.title = `daygate — ${day.date}`;

      const sections = { ...day.sections, counts: counts?.sections?.counts, diensten: upcoming?.sections?.diensten ?? day.sections.diensten };
      setBadges(sections);
      fill("timeline", [...render.problems([day.sections.plan, day.sections.events]), ...render.timeline(day.date, day.plan, day.events)]);
      fill("counts", [...render.problems([sections.counts]), ...render.counts(counts?.counts)]);
      fill("nutrition", [...render.problems([day.sections.nutrition]), ...render.nutrition(day.nutrition)]);
      fill("diensten", [...render.problems([sections.diensten]), ...render.diensten(upcoming?.diensten ?? day.diensten)]);
      fill("knowledge", [...render.problems([day.sections.knowledge]).map((p) => render.h("li", {}, p)), ...render.knowledge(day.knowledge)]);

      const all = Object.values(sections).filter(Boolean);
      const incomplete = all.filter((report) => report.status !== "ok");
      $("banner").hidden = incomplete.length === 0;
      $("banner").textContent = incomplete.length
        ? `Incomplete: ${incomplete.length} section${incomplete.length > 1 ? "s" : ""} ${incomplete.length > 1 ? "are" : "is"} stale or unavailable — see the badges.`
        : "";
      $("updated").textContent = `Updated ${new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })}`;
      window.__daygate.renders += 1;
    } catch (error) {
      if (error instanceof KeyRequired) { askForKey(); return; }
      $("banner").hidden = false;
      $("banner").textContent = `The gateway did not answer: ${error.message}`;
    } finally {
      state.loading = null;
      if (state.pending) { state.pending = false; load(); }
    }
  })();
  return state.loading;
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
  $("key-form").addEventListener("submit", () => {
    const key = $("key-input").value.trim();
    if (key) { storeKey(key); load(); connect(); }
  });
  window.addEventListener("popstate", () => { state.date = dateFromURL(); load(); });
  load();
  connect();
  // Between change events, keep freshness badges honest.
  setInterval(() => { if (!document.hidden) load(); }, 60000);
}

let stopFollowing = null;
function connect() {
  stopFollowing?.();
  stopFollowing = followChanges((name) => {
    if (name === "change") onChange();
    else if (name === "hello") onChange();
    else if (name === "key-required") askForKey();
  }, (live) => {
    $("live").dataset.state = live;
    $("live").textContent = live === "live" ? "live" : live === "connecting" ? "connecting…" : "reconnecting…";
  });
}

start();
