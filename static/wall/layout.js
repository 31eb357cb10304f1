// The wall's layout, decided by pure functions of the household's day (no DOM, no clock of its
// own): which lanes there are and how wide, which items each holds, where each item sits in
// time rows and side-by-side columns, and which crowded stretches collapse into a "+N" that
// opens, and how tall each time row is given what its boxes need. The page (wall.js) draws it
// with CSS grid: each box in the rows of its time and in its own columns, so no two boxes can
// overlap, and each row at least as tall as its boxes' text, so none is cut. The page measures
// only what text takes at a width, and tries `fitSteps()` in order until one fits the screen.
// Tests: Tests/Wall/layout_test.mjs (node --test).

/** The hours shown at least; a day holding something earlier or later widens them. */
export const HOURS = { first: 7, last: 22 };
/** At most this many items stand side by side in one lane; more share a "+N" box. */
export const MAX_COLUMNS = 4;
/** The colour of what several members share (a calendar they all subscribe to). */
export const SHARED_COLOR = "#868e96";
const DAY_MINUTES = 24 * 60;

// MARK: - Time in the household's zone

function parts(date, zone) {
  const values = {};
  for (const part of new Intl.DateTimeFormat("en-GB", {
    timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
  }).formatToParts(date)) values[part.type] = part.value;
  return values;
}

/** Minutes after local midnight of `date` in `zone`, and the local day (YYYY-MM-DD). */
export function local(date, zone) {
  const p = parts(date, zone);
  return { day: `${p.year}-${p.month}-${p.day}`, minute: Number(p.hour) * 60 + Number(p.minute) };
}

export function clockText(date, zone) {
  return new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(date);
}

/** Minutes of a time within `day`: before the day 0, after it 24 h. */
export function minuteOn(iso, day, zone) {
  const at = local(new Date(iso), zone);
  if (at.day < day) return 0;
  if (at.day > day) return DAY_MINUTES;
  return at.minute;
}

export function minuteText(minute) {
  const m = Math.max(0, Math.min(DAY_MINUTES - 1, Math.round(minute)));
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}

// MARK: - What each lane holds

function ownersOf(event) {
  return event.members || (event.member ? [event.member] : []);
}

/** The lane an event belongs to: "shared" when several members share it, else its member's. */
function laneOf(event) {
  const owners = ownersOf(event);
  return owners.length > 1 ? "shared" : owners[0];
}

/** A canteen shift as a lane item ("Shift: Keuken", its real times even across midnight). */
export function shiftItem(dienst, day, zone) {
  return {
    start: minuteOn(dienst.start, day, zone), end: minuteOn(dienst.end, day, zone),
    time: `${clockText(new Date(dienst.start), zone)}–${clockText(new Date(dienst.end), zone)}`,
    title: `Shift: ${dienst.type?.name || "canteen"}`, kind: "dienst",
    detail: [dienst.location, dienst.tenant].filter(Boolean).join(" · "),
  };
}

/** A member's canteen shifts of the day (those that touch it), in time order: what their lane
 * draws and what their card lists. */
export function shiftsOf(member, day, zone) {
  return (member?.diensten || [])
    .map((dienst) => ({ dienst, item: shiftItem(dienst, day, zone) }))
    .filter(({ item }) => item.end > 0 && item.start < DAY_MINUTES && item.end >= item.start)
    .sort((a, b) => a.item.start - b.item.start);
}

/**
 * The lanes of the day: "Everyone" (when members share something) and then one per member,
 * each with its timed items ({start, end (minutes of the day), time, title, kind, detail}) and
 * its all-day items ({title, kind}).
 */
export function lanesOf(answer, zone) {
  const day = answer.date;
  const members = answer.members || [];
  const events = answer.events || [];
  const specs = [];
  if (events.some((e) => ownersOf(e).length > 1)) specs.push({ id: "shared", name: "Everyone", color: SHARED_COLOR });
  for (const member of members) specs.push({ id: member.id, name: member.name, color: member.color });
  return specs.map((spec) => {
    const items = [];
    const allDay = [];
    for (const event of events) {
      if (laneOf(event) !== spec.id) continue;
      if (event.all_day) {
        allDay.push({ title: event.title, kind: "event" });
        continue;
      }
      const start = minuteOn(event.start, day, zone);
      const end = minuteOn(event.end || event.start, day, zone);
      // A moment (no end) counts when it falls on the day.
      if (!(end > start || (end === start && local(new Date(event.start), zone).day === day))) continue;
      const time = event.end && event.end !== event.start
        ? `${clockText(new Date(event.start), zone)}–${clockText(new Date(event.end), zone)}`
        : clockText(new Date(event.start), zone);
      items.push({ start, end, time, title: event.title, kind: "event", detail: event.location || "" });
    }
    if (spec.id !== "shared") {
      const member = members.find((m) => m.id === spec.id);
      const offset = {};
      for (const slot of member?.plan || []) {
        if (typeof slot.hour !== "number") continue;
        const start = Math.min(DAY_MINUTES - 1, slot.hour * 60 + (offset[slot.hour] || 0));
        const length = Math.max(10, slot.duration_minutes || 30);
        offset[slot.hour] = (offset[slot.hour] || 0) + length;
        const end = Math.min(DAY_MINUTES, start + length);
        items.push({
          start, end, time: minuteText(start), title: slot.title || "Task",
          kind: slot.kind === "task" ? "task" : "slot", detail: "",
        });
      }
      for (const { item } of shiftsOf(member, day, zone)) items.push(item);
    }
    items.sort((a, b) => a.start - b.start || b.end - a.end || a.title.localeCompare(b.title));
    return { ...spec, items, allDay };
  });
}

// MARK: - Placing the items

/** The stretch an item takes on the wall: at least one minute, so a moment gets its own row. */
function stretch(item) {
  const start = Math.max(0, Math.min(item.start, DAY_MINUTES - 1));
  return { from: start, to: Math.min(DAY_MINUTES, Math.max(item.end, start + 1)) };
}

function gcd(a, b) { return b ? gcd(b, a % b) : a; }
function lcm(a, b) { return (a * b) / gcd(a, b); }

/** A "+N" box for `items`: the stretch they cover together, every one of them kept to open. */
function moreBox(items) {
  const flat = items.flatMap((item) => (item.kind === "more" ? item.items : [item]));
  flat.sort((a, b) => a.start - b.start || b.end - a.end);
  return {
    kind: "more", items: flat, start: Math.min(...flat.map((i) => stretch(i).from)),
    end: Math.max(...flat.map((i) => stretch(i).to)),
  };
}

/**
 * Clusters of items that overlap (directly or through others), each item in a column of its
 * cluster (the first free one, in time order). A cluster wider than `maxColumns` keeps its first
 * `maxColumns - 1` columns and puts the rest in one "+N" box in the last column.
 */
export function placeInColumns(items, maxColumns = MAX_COLUMNS) {
  const sorted = [...items].sort((a, b) => stretch(a).from - stretch(b).from || stretch(b).to - stretch(a).to);
  const clusters = [];
  let current = null;
  for (const item of sorted) {
    const { from, to } = stretch(item);
    if (!current || from >= current.to) {
      current = { to, items: [] };
      clusters.push(current);
    }
    current.items.push(item);
    current.to = Math.max(current.to, to);
  }
  const placed = [];
  for (const cluster of clusters) {
    const ends = [];
    const columnOf = new Map();
    for (const item of cluster.items) {
      const { from, to } = stretch(item);
      let column = ends.findIndex((end) => end <= from);
      if (column < 0) { column = ends.length; ends.push(0); }
      ends[column] = to;
      columnOf.set(item, column);
    }
    let columns = ends.length;
    let boxes = cluster.items.map((item) => ({ item, column: columnOf.get(item) }));
    if (columns > maxColumns) {
      const kept = boxes.filter((box) => box.column < maxColumns - 1);
      const rest = boxes.filter((box) => box.column >= maxColumns - 1).map((box) => box.item);
      boxes = [...kept, { item: moreBox(rest), column: maxColumns - 1 }];
      columns = maxColumns;
    }
    for (const box of boxes) placed.push({ ...box, columns });
  }
  return placed;
}

/**
 * The crowded stretches to collapse first, most crowded first: a lane's items starting in one
 * hour, when two or more do (ties: the lane with more items, then the earlier hour).
 */
export function crowdedHours(lanes) {
  const groups = [];
  lanes.forEach((lane, index) => {
    const byHour = new Map();
    for (const item of lane.items) {
      const hour = Math.floor(stretch(item).from / 60);
      byHour.set(hour, (byHour.get(hour) || 0) + 1);
    }
    for (const [hour, count] of byHour) if (count >= 2) groups.push({ lane: index, hour, count, laneItems: lane.items.length });
  });
  groups.sort((a, b) => b.count - a.count || b.laneItems - a.laneItems || a.hour - b.hour || a.lane - b.lane);
  return groups;
}

/**
 * The wall's layout of `answer` in `zone` (the household's):
 * - `window`: the minutes shown ({first, last}), 07:00–22:00 widened to whole hours that hold
 *   every item;
 * - `rows`: time rows ({from, to}, minutes) between every boundary of an item and every hour;
 *   the page gives each a height in proportion to its minutes and at least what it holds;
 * - `hours`: the hour marks ({minute, row}: the row that starts there; the last is `rows.length`);
 * - `lanes`: {id, name, color, weight (its share of the width: an empty lane little, a lane
 *   with items side by side more), subcolumns, allDay, boxes: [{item, rows: [first, end),
 *   columns: [first, end)}]}, with "+N" boxes ({kind: "more", items}) where `collapse` crowded
 *   hours (see `crowdedHours`) or more than `maxColumns` side by side are put together;
 * - `now`: where the now-line goes ({row, fraction}) when `nowDate` falls on the day shown.
 */
export function layoutDay(answer, { zone, maxColumns = MAX_COLUMNS, collapse = 0, nowDate = null } = {}) {
  const lanes = lanesOf(answer, zone);
  // The crowded hours to collapse, each into one "+N" item of its lane.
  for (const group of crowdedHours(lanes).slice(0, collapse)) {
    const lane = lanes[group.lane];
    const inHour = lane.items.filter((item) => item.kind !== "more" && Math.floor(stretch(item).from / 60) === group.hour);
    if (inHour.length < 2) continue;
    lane.items = [...lane.items.filter((item) => !inHour.includes(item)), moreBox(inHour)];
  }
  let first = HOURS.first * 60;
  let last = HOURS.last * 60;
  for (const lane of lanes) {
    for (const item of lane.items) {
      const { from, to } = stretch(item);
      first = Math.min(first, Math.floor(from / 60) * 60);
      last = Math.max(last, Math.ceil(to / 60) * 60);
    }
  }
  const window = { first: Math.max(0, first), last: Math.min(DAY_MINUTES, last) };
  const placedLanes = lanes.map((lane) => ({ ...lane, placed: placeInColumns(lane.items, maxColumns) }));
  const marks = new Set([window.first, window.last]);
  for (let minute = window.first; minute <= window.last; minute += 60) marks.add(minute);
  for (const lane of placedLanes) {
    for (const { item } of lane.placed) {
      const { from, to } = stretch(item);
      marks.add(Math.max(window.first, Math.min(window.last, from)));
      marks.add(Math.max(window.first, Math.min(window.last, to)));
    }
  }
  const bounds = [...marks].sort((a, b) => a - b);
  const rows = bounds.slice(0, -1).map((from, index) => ({ from, to: bounds[index + 1] }));
  const rowAt = new Map(bounds.map((minute, index) => [minute, index]));
  const hours = [];
  for (let minute = window.first; minute <= window.last; minute += 60) hours.push({ minute, row: rowAt.get(minute) });

  const result = placedLanes.map((lane) => {
    const subcolumns = lane.placed.reduce((value, box) => lcm(value, box.columns), 1);
    const widest = lane.placed.reduce((value, box) => Math.max(value, box.columns), 0);
    const count = lane.items.reduce((sum, item) => sum + (item.kind === "more" ? item.items.length : 1), 0);
    const weight = count === 0 && lane.allDay.length === 0 ? 0.6 : Math.max(1, widest) + Math.min(1, count / 8);
    const boxes = lane.placed.map(({ item, column, columns }) => {
      const { from, to } = stretch(item);
      const share = subcolumns / columns;
      return {
        item,
        rows: [rowAt.get(Math.max(window.first, from)), rowAt.get(Math.min(window.last, to))],
        columns: [column * share, (column + 1) * share],
      };
    });
    return { id: lane.id, name: lane.name, color: lane.color, weight, subcolumns, allDay: lane.allDay, boxes };
  });

  let now = null;
  if (nowDate) {
    const at = local(nowDate, zone);
    if (at.day === answer.date && at.minute >= window.first && at.minute <= window.last && rows.length) {
      let index = rows.findIndex((row) => at.minute < row.to);
      if (index < 0) index = rows.length - 1;
      const row = rows[index];
      now = { row: index, fraction: Math.min(1, Math.max(0, (at.minute - row.from) / (row.to - row.from))) };
    }
  }
  return { window, rows, hours, lanes: result, now };
}

/**
 * The height of each time row (px), given what each box needs (`boxes`: {rows: [first, end),
 * need}, the height its content takes at its width) and the height there is (`available`):
 * every box gets at least what it needs, shortfalls spread over its rows in proportion to their
 * minutes; what is left goes to the rows in proportion to their minutes, as a timeline would
 * (a row already taller than its share keeps its height). `fits` says whether the rows' least
 * heights fit in `available`.
 */
export function rowHeights(rows, boxes, available) {
  const flex = rows.map((row) => row.to - row.from);
  const least = rows.map(() => 0);
  // Boxes over fewer rows first; a row's least height only grows, so a box once satisfied stays so.
  const sorted = boxes.filter((box) => box.rows[1] > box.rows[0])
    .sort((a, b) => (a.rows[1] - a.rows[0]) - (b.rows[1] - b.rows[0]) || a.rows[0] - b.rows[0]);
  for (const box of sorted) {
    let have = 0;
    let minutes = 0;
    for (let row = box.rows[0]; row < box.rows[1]; row++) { have += least[row]; minutes += flex[row]; }
    const short = box.need - have;
    if (short <= 0) continue;
    for (let row = box.rows[0]; row < box.rows[1]; row++) least[row] += (short * flex[row]) / minutes;
  }
  const needed = least.reduce((sum, height) => sum + height, 0);
  if (needed >= available) return { heights: least, fits: needed <= available + 0.5 };
  // The size of a minute: rows whose least height is more than their share keep it.
  const fixed = new Set();
  let perMinute = 0;
  for (;;) {
    let left = available;
    let minutes = 0;
    rows.forEach((_, row) => { if (fixed.has(row)) left -= least[row]; else minutes += flex[row]; });
    perMinute = minutes > 0 ? left / minutes : 0;
    const more = rows.map((_, row) => row).filter((row) => !fixed.has(row) && least[row] > perMinute * flex[row]);
    if (!more.length) break;
    for (const row of more) fixed.add(row);
  }
  return { heights: rows.map((_, row) => (fixed.has(row) ? least[row] : perMinute * flex[row])), fits: true };
}

/**
 * The layouts the page tries, in order, until one fits its screen: the whole day at full size,
 * then smaller type (down to `floor` of it), then at the smallest type one crowded hour after
 * another put together in a "+N" (as many as the day has).
 */
export function fitSteps(answer, zone, floor = 0.8) {
  const steps = [];
  for (let scale = 1; scale >= floor - 1e-9; scale = Math.round((scale - 0.1) * 100) / 100) steps.push({ scale, collapse: 0 });
  const crowded = crowdedHours(lanesOf(answer, zone)).length;
  for (let collapse = 1; collapse <= crowded; collapse++) steps.push({ scale: floor, collapse });
  return steps;
}
