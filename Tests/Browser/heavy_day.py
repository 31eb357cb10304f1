"""A heavy day for the wall, made from the demo's own household answer (/v1/household/today):
one member (the first) with 20 things between 09:00 and 12:00 — events that overlap up to five
deep, two planned tasks, a canteen shift — two all-day events and a shift from 22:00 to 02:00;
another member (the last) with nothing at all. Everything else is the demo's answer as it was,
so the shape is the gateway's own."""
import copy
import datetime
import zoneinfo

# (start, end, title, location) of the first member's events, 09:00–12:00.
EVENTS = [
    ("09:00", "09:30", "Standup with the platform team", "Google Meet"),
    ("09:00", "10:00", "Belastingaangifte invullen en versturen", ""),
    ("09:10", "09:40", "Call the kitchen fitter about the worktop", ""),
    ("09:15", "09:45", "Dentist appointment for Bas", "Tandartspraktijk Centrum"),
    ("09:30", "09:45", "Parcel pickup", "PostNL point"),
    ("09:45", "10:15", "Review of the quarterly roadmap draft", ""),
    ("10:00", "10:30", "1:1 met Sanne", "Kamer 3.12"),
    ("10:00", "11:00", "Workshop: accessibility in design systems", "Room 2"),
    ("10:15", "10:25", "Call the garage", ""),
    ("10:30", "11:30", "Design review", ""),
    ("10:30", "10:45", "Pay the school trip", ""),
    ("10:45", "11:15", "Coffee with Noor", "Bakkerij Vlaar"),
    ("11:00", "11:30", "Plan the birthday party", ""),
    ("11:00", "12:00", "Interview: senior engineer candidate", "Room 4"),
    ("11:15", "11:45", "Order the groceries online", ""),
    ("11:30", "12:00", "Lunch walk", ""),
    ("11:45", "12:00", "Sign the rental contract", ""),
]
TASKS = [(9, "Reply to the school's e-mail"), (10, "Book the holiday cottage")]
ALL_DAY = ["Working from home", "Anna's birthday week"]
HEAVY_COUNT = len(EVENTS) + len(TASKS) + 1  # and the shift 11:00–12:00


def heavy_day(answer, zone_name):
    zone = zoneinfo.ZoneInfo(zone_name)
    day = datetime.date.fromisoformat(answer["date"])
    heavy = copy.deepcopy(answer)
    busy, empty = heavy["members"][0], heavy["members"][-1]

    def at(clock, days=0):
        hour, minute = map(int, clock.split(":"))
        moment = datetime.datetime.combine(day + datetime.timedelta(days=days), datetime.time(hour, minute), zone)
        return moment.isoformat()

    events = [e for e in heavy["events"] if len(e.get("members") or []) > 1]
    for index, (start, end, title, location) in enumerate(EVENTS):
        events.append({
            "all_day": False, "calendar": None, "color": None, "description": None, "end": at(end),
            "id": f"heavy-{index}", "location": location or None, "member": busy["id"], "start": at(start),
            "status": "confirmed", "tags": [], "title": title, "type": None})
    for index, title in enumerate(ALL_DAY):
        events.append({
            "all_day": True, "calendar": None, "color": None, "description": None, "end": at("00:00", 1),
            "id": f"heavy-all-day-{index}", "location": None, "member": busy["id"], "start": at("00:00"),
            "status": "confirmed", "tags": [], "title": title, "type": None})
    # The other members' own events stay; the empty member has none, and shares nothing.
    for event in heavy["events"]:
        owners = event.get("members") or [event.get("member")]
        if len(owners) == 1 and owners[0] not in (busy["id"], empty["id"]):
            events.append(event)
    for event in events:
        if event.get("members") and empty["id"] in event["members"]:
            event["members"] = [m for m in event["members"] if m != empty["id"]]
            event["shared"] = len(event["members"]) > 1
            if len(event["members"]) == 1:
                event["member"] = event.pop("members")[0]
    heavy["events"] = sorted(events, key=lambda e: e["start"])
    busy["plan"] = [{"hour": hour, "title": title, "kind": "task", "duration_minutes": 30} for hour, title in TASKS]
    template = (answer["members"][-1].get("diensten") or [None])[0] or {
        "id": "shift", "location": "Kantine", "tenant": "vvwilhelmus", "type": {"name": "Bar"}}
    shift = dict(copy.deepcopy(template), id="heavy-shift-morning", start=at("11:00"), end=at("12:00"))
    shift["type"] = {"icon": "lucide-beer", "name": "Bar"}
    night = dict(copy.deepcopy(template), id="heavy-shift-night", start=at("22:00"), end=at("02:00", 1))
    night["type"] = {"icon": "lucide-beer", "name": "Late bar"}
    busy["diensten"] = [shift, night]
    busy.setdefault("sections", {}).setdefault("diensten", {"status": "ok", "backend": "kantinekoning"})
    empty["plan"] = []
    empty["diensten"] = []
    return heavy
