// The wall's layout without a browser: node --test Tests/Wall/
// (static/wall/layout.js is a plain ES module; these tests give it days and check what it decides.)
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  MAX_COLUMNS, crowdedHours, fitSteps, lanesOf, layoutDay, placeInColumns, rowHeights, shiftsOf,
} from "../../static/wall/layout.js";

const ZONE = "Europe/Amsterdam";
const DAY = "2026-11-28";

/** An ISO time of DAY (or `days` later) in Amsterdam (UTC+1 in November). */
function at(clock, days = 0) {
  const [h, m] = clock.split(":").map(Number);
  const date = new Date(Date.UTC(2026, 10, 28 + days, h - 1, m));
  return date.toISOString();
}

function event(member, start, end, title, extra = {}) {
  return { all_day: false, member, start: at(start), end: at(end), title, location: null, ...extra };
}

/** A household day: Anna with `annaEvents`, Bas with one event, Mila with nothing. */
function day({ annaEvents = [], shared = [], diensten = [], plan = [], allDay = [] } = {}) {
  return {
    date: DAY, timezone: ZONE,
    members: [
      { id: "anna", name: "Anna", color: "#1d4ed8", plan, diensten, sections: { diensten: { status: "ok" } } },
      { id: "bas", name: "Bas", color: "#15803d", plan: [], diensten: [] },
      { id: "mila", name: "Mila", color: "#be185d", plan: [], diensten: [], sections: { diensten: { status: "ok" } } },
    ],
    events: [
      ...annaEvents,
      ...allDay.map((title) => ({ all_day: true, member: "anna", start: at("00:00"), end: at("00:00", 1), title })),
      event("bas", "16:00", "17:00", "Football training"),
      ...shared.map(([start, end, title]) => ({ ...event(null, start, end, title), member: undefined, members: ["anna", "bas", "mila"] })),
    ],
  };
}

/** Twenty things between 09:00 and 12:00 for Anna (overlapping up to five deep), as the
 * browser test's heavy day has. */
function heavyDay() {
  const clocks = [
    ["09:00", "09:30"], ["09:00", "10:00"], ["09:10", "09:40"], ["09:15", "09:45"], ["09:30", "09:45"],
    ["09:45", "10:15"], ["10:00", "10:30"], ["10:00", "11:00"], ["10:15", "10:25"], ["10:30", "11:30"],
    ["10:30", "10:45"], ["10:45", "11:15"], ["11:00", "11:30"], ["11:00", "12:00"], ["11:15", "11:45"],
    ["11:30", "12:00"], ["11:45", "12:00"],
  ];
  return day({
    annaEvents: clocks.map(([s, e], i) => event("anna", s, e, `Thing ${i + 1}`)),
    plan: [{ hour: 9, title: "Task A", kind: "task" }, { hour: 10, title: "Task B", kind: "task" }],
    diensten: [
      { id: "m", start: at("11:00"), end: at("12:00"), type: { name: "Bar" }, tenant: "club" },
      { id: "n", start: at("22:00"), end: at("02:00", 1), type: { name: "Late bar" }, tenant: "club" },
      { id: "t", start: at("10:00", 1), end: at("12:00", 1), type: { name: "Tomorrow" }, tenant: "club" },
    ],
    shared: [["09:00", "11:30", "School photographer"]],
    allDay: ["Working from home", "Birthday week"],
  });
}

/** Every pair of boxes in one lane: none may share both a row and a column. */
function assertNoOverlap(layout) {
  for (const lane of layout.lanes) {
    lane.boxes.forEach((a, i) => {
      assert.ok(a.rows[1] > a.rows[0], `${lane.name}: a box with no row`);
      assert.ok(a.columns[1] > a.columns[0] && a.columns[1] <= lane.subcolumns, `${lane.name}: columns ${a.columns}`);
      lane.boxes.slice(i + 1).forEach((b) => {
        const rows = a.rows[0] < b.rows[1] && b.rows[0] < a.rows[1];
        const columns = a.columns[0] < b.columns[1] && b.columns[0] < a.columns[1];
        assert.ok(!(rows && columns), `${lane.name}: ${JSON.stringify(a.item.title)} and ${JSON.stringify(b.item.title)} overlap`);
      });
    });
  }
}

function shownItems(lane) {
  return lane.boxes.flatMap((box) => (box.item.kind === "more" ? box.item.items : [box.item]));
}

test("shared events go to Everyone once, a member's own to their lane", () => {
  const lanes = lanesOf(day({ annaEvents: [event("anna", "09:00", "10:00", "Standup")], shared: [["13:00", "14:00", "School play"]] }), ZONE);
  assert.deepEqual(lanes.map((l) => l.name), ["Everyone", "Anna", "Bas", "Mila"]);
  assert.deepEqual(lanes[0].items.map((i) => i.title), ["School play"]);
  assert.deepEqual(lanes[1].items.map((i) => i.title), ["Standup"]);
  assert.deepEqual(lanes[1].items[0], { start: 540, end: 600, time: "09:00–10:00", title: "Standup", kind: "event", detail: "" });
  assert.equal(lanes[3].items.length, 0);
});

test("the household's zone decides the minutes, west and east of UTC", () => {
  const answer = day({ annaEvents: [{ all_day: false, member: "anna", start: "2026-11-28T14:00:00Z", end: "2026-11-28T15:00:00Z", title: "Call" }] });
  assert.equal(lanesOf(answer, "Europe/Amsterdam")[0].items[0].start, 15 * 60);
  assert.equal(lanesOf(answer, "America/New_York")[0].items[0].start, 9 * 60);
  // 23:00–00:00 in Tokyo: the last hour of the 28th, to the day's end.
  const tokyo = lanesOf(answer, "Asia/Tokyo")[0].items[0];
  assert.deepEqual([tokyo.start, tokyo.end, tokyo.time], [23 * 60, 24 * 60, "23:00–00:00"]);
  // 02:00–03:00 the next day in Tokyo (17:00Z): not the 28th's.
  const later = day({ annaEvents: [{ all_day: false, member: "anna", start: "2026-11-28T17:00:00Z", end: "2026-11-28T18:00:00Z", title: "Late" }] });
  assert.equal(lanesOf(later, "Asia/Tokyo")[0].items.length, 0);
  assert.equal(lanesOf(later, "America/Los_Angeles")[0].items[0].start, 9 * 60);
});

test("a shift across midnight keeps its own times and ends the day; tomorrow's is not shown", () => {
  const answer = heavyDay();
  const anna = lanesOf(answer, ZONE)[1];
  const shifts = anna.items.filter((i) => i.kind === "dienst");
  assert.deepEqual(shifts.map((s) => [s.time, s.title, s.start, s.end]), [
    ["11:00–12:00", "Shift: Bar", 660, 720], ["22:00–02:00", "Shift: Late bar", 1320, 1440],
  ]);
  // The card lists the same shifts as the lane: one function decides both.
  assert.deepEqual(shiftsOf(answer.members[0], DAY, ZONE).map(({ item }) => item), shifts);
  const layout = layoutDay(answer, { zone: ZONE });
  assert.deepEqual(layout.window, { first: 7 * 60, last: 24 * 60 });
});

test("a shift that ended is still the member's shift of the day (their card says so too)", () => {
  const answer = day({ diensten: [{ id: "k", start: at("09:00"), end: at("12:00"), type: { name: "Keuken" } }] });
  assert.equal(shiftsOf(answer.members[0], DAY, ZONE).length, 1);
});

test("overlapping items stand side by side, no more than the limit; the rest share a +N", () => {
  const six = Array.from({ length: 6 }, (_, i) => ({ start: 600, end: 660, title: `T${i}` }));
  const placed = placeInColumns(six);
  assert.equal(placed.length, MAX_COLUMNS);
  assert.ok(placed.every((box) => box.columns === MAX_COLUMNS));
  const more = placed.find((box) => box.item.kind === "more");
  assert.equal(more.column, MAX_COLUMNS - 1);
  assert.deepEqual(more.item.items.map((i) => i.title), ["T3", "T4", "T5"]);
  // Items that only follow each other do not split the lane.
  const row = placeInColumns([{ start: 540, end: 600, title: "a" }, { start: 600, end: 660, title: "b" }]);
  assert.deepEqual(row.map((box) => [box.column, box.columns]), [[0, 1], [0, 1]]);
});

test("no two boxes overlap on the heavy day, and every item is on the wall once", () => {
  const answer = heavyDay();
  for (const collapse of [0, 1, 2, 3]) {
    const layout = layoutDay(answer, { zone: ZONE, collapse });
    assertNoOverlap(layout);
    const anna = layout.lanes[1];
    const titles = shownItems(anna).map((i) => i.title).sort();
    assert.equal(titles.length, 17 + 2 + 2, `collapse ${collapse}: every item of Anna's once`);
    assert.equal(new Set(titles).size, titles.length);
  }
});

test("no two boxes overlap on random days", () => {
  let seed = 42;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let round = 0; round < 200; round++) {
    const events = Array.from({ length: Math.floor(random() * 30) }, (_, i) => {
      const start = 6 * 60 + Math.floor(random() * 16 * 60);
      const length = Math.floor(random() * 4) * 15 * (random() < 0.2 ? 6 : 1);
      const clock = (m) => `${String(Math.floor(m / 60) % 24).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
      return event(random() < 0.5 ? "anna" : "bas", clock(start), clock(Math.min(start + length, 23 * 60 + 59)), `E${i}`);
    });
    const answer = day({ annaEvents: events });
    const layout = layoutDay(answer, { zone: ZONE, collapse: Math.floor(random() * 3) });
    assertNoOverlap(layout);
    for (const lane of layoutDay(answer, { zone: ZONE }).lanes) {
      const expected = lanesOf(answer, ZONE).find((l) => l.id === lane.id).items.length;
      assert.equal(shownItems(lane).length, expected, `round ${round}: ${lane.name} shows every item`);
    }
  }
});

test("lanes are as wide as what they hold: an empty lane takes little", () => {
  const layout = layoutDay(heavyDay(), { zone: ZONE });
  const weight = Object.fromEntries(layout.lanes.map((l) => [l.name, l.weight]));
  assert.ok(weight.Mila < 1 && weight.Mila < weight.Bas && weight.Bas < weight.Anna, JSON.stringify(weight));
  const total = Object.values(weight).reduce((a, b) => a + b, 0);
  assert.ok(weight.Mila / total < 0.1, `an empty lane's share: ${weight.Mila / total}`);
});

test("the crowded hours collapse first, one more at each step", () => {
  const answer = heavyDay();
  const groups = crowdedHours(lanesOf(answer, ZONE));
  assert.equal(groups[0].lane, 1, "Anna's lane");
  const collapsed = layoutDay(answer, { zone: ZONE, collapse: 1 }).lanes[1];
  const more = collapsed.boxes.filter((box) => box.item.kind === "more");
  assert.ok(more.some((box) => box.item.items.length === groups[0].count), "that hour is one +N");
  const steps = fitSteps(answer, ZONE);
  assert.deepEqual(steps.slice(0, 3), [{ scale: 1, collapse: 0 }, { scale: 0.9, collapse: 0 }, { scale: 0.8, collapse: 0 }]);
  assert.equal(steps.at(-1).collapse, groups.length);
});

test("rows: each box gets what it needs, the rest goes by the minutes", () => {
  const rows = [{ from: 0, to: 60 }, { from: 60, to: 120 }, { from: 120, to: 180 }];
  // Nothing needed: a plain timeline.
  assert.deepEqual(rowHeights(rows, [], 300), { heights: [100, 100, 100], fits: true });
  // One box over the first two rows needs 280: those rows grow, the third keeps the rest.
  const grown = rowHeights(rows, [{ rows: [0, 2], need: 280 }, { rows: [2, 3], need: 10 }], 300);
  assert.ok(grown.heights[0] + grown.heights[1] >= 280 - 1e-9 && grown.heights[2] >= 10 - 1e-9, JSON.stringify(grown));
  assert.ok(Math.abs(grown.heights.reduce((a, b) => a + b, 0) - 300) < 1e-6);
  // More than there is: it does not fit.
  assert.equal(rowHeights(rows, [{ rows: [0, 3], need: 400 }], 300).fits, false);
});

test("rows on the heavy day: every box has its height, and the rows add up", () => {
  const layout = layoutDay(heavyDay(), { zone: ZONE });
  const boxes = layout.lanes.flatMap((lane) => lane.boxes.map((box) => ({ rows: box.rows, need: 20 + (box.item.title?.length || 0) })));
  const { heights, fits } = rowHeights(layout.rows, boxes, 2000);
  assert.ok(fits);
  for (const box of boxes) {
    const have = heights.slice(box.rows[0], box.rows[1]).reduce((a, b) => a + b, 0);
    assert.ok(have >= box.need - 1e-6, `a box has ${have} of ${box.need}`);
  }
});

test("the now-line sits in the row of now", () => {
  const answer = day({ annaEvents: [event("anna", "09:00", "10:00", "Standup")] });
  const layout = layoutDay(answer, { zone: ZONE, nowDate: new Date(at("09:30")) });
  const row = layout.rows[layout.now.row];
  assert.ok(row.from <= 570 && 570 < row.to);
  assert.equal(layout.now.fraction, (570 - row.from) / (row.to - row.from));
  assert.equal(layoutDay(answer, { zone: ZONE, nowDate: new Date(at("09:30", 1)) }).now, null, "another day: none");
});

test("both DST changes: the wall counts the household's clock", () => {
  const member = { id: "anna", name: "Anna", color: "#1d4ed8" };
  // 29 March 2026, Amsterdam: 02:00 becomes 03:00. 00:30Z–01:30Z is 01:30–03:30 on the clock.
  const spring = { date: "2026-03-29", members: [member], events: [{ member: "anna", start: "2026-03-29T00:30:00Z", end: "2026-03-29T01:30:00Z", title: "Night" }] };
  assert.deepEqual(lanesOf(spring, ZONE)[0].items.map((i) => [i.start, i.end, i.time]), [[90, 210, "01:30–03:30"]]);
  // 25 October 2026: 03:00 becomes 02:00. 00:30Z–01:30Z is 02:30–02:30 on the clock (an hour).
  const autumn = { date: "2026-10-25", members: [member], events: [{ member: "anna", start: "2026-10-25T00:30:00Z", end: "2026-10-25T01:30:00Z", title: "Night" }] };
  const item = lanesOf(autumn, ZONE)[0].items[0];
  assert.deepEqual([item.start, item.time], [150, "02:30–02:30"]);
  assertNoOverlap(layoutDay(autumn, { zone: ZONE }));
  // Around midnight: 23:30–00:30 belongs to the day it starts on, to its end.
  const late = { date: DAY, members: [member], events: [{ member: "anna", start: at("23:30"), end: at("00:30", 1), title: "Late" }] };
  assert.deepEqual(lanesOf(late, ZONE)[0].items.map((i) => [i.start, i.end]), [[1410, 1440]]);
  const next = { ...late, date: "2026-11-29" };
  assert.deepEqual(lanesOf(next, ZONE)[0].items.map((i) => [i.start, i.end]), [[0, 30]]);
});
