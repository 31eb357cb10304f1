#!/usr/bin/env python3
"""Reference occurrences for daygate's ICS reader, from python icalendar + recurring-ical-events.

Usage: reference_occurrences.py FIXTURE.ics ZONE FROM TO
       reference_occurrences.py --batch '[["FIXTURE.ics", "ZONE", "FROM", "TO"], ...]'
  ZONE      the household IANA zone (floating times are read in it)
  FROM, TO  local days YYYY-MM-DD, TO exclusive

--batch answers every case in one run (one interpreter start for the whole comparison) with a
JSON list of the single-case answers, in order.

Prints {"YYYY-MM-DD": [{"uid": ..., "start": ..., "summary": ...}, ...], ...}: for each local
day the occurrences overlapping it (all-day events by their dates, start as YYYY-MM-DD; timed
events when [start, end) overlaps the day, an instant event by its start; start as ISO 8601
with the household offset). Cancelled occurrences are left out. Lists are sorted by start, uid.
"""

import datetime
import json
import sys
import zoneinfo

try:
    import icalendar
    import recurring_ical_events
    import x_wr_timezone
except ImportError as error:  # pragma: no cover
    sys.stderr.write(f"missing Python module: {error.name}; run `make test`, which installs them\n")
    sys.exit(3)


def occurrences_per_day(path: str, zone_name: str, first: str, last: str) -> dict:
    zone = zoneinfo.ZoneInfo(zone_name)
    first_day = datetime.date.fromisoformat(first)
    last_day = datetime.date.fromisoformat(last)
    with open(path, "rb") as handle:
        calendar = icalendar.Calendar.from_ical(handle.read())
    # As recurring_ical_events.of() does: X-WR-TIMEZONE (x-wr-timezone) first, so floating
    # times are read in the feed's declared zone, as calendar apps and daygate read them; in
    # the household zone when the feed declares none.
    calendar = x_wr_timezone.to_standard(calendar)
    query = recurring_ical_events.CalendarQuery(calendar, False, ("VEVENT",), False)
    found = query.between(first_day - datetime.timedelta(days=3), last_day + datetime.timedelta(days=3))

    occurrences = []
    for event in found:
        if str(event.get("STATUS", "")).upper() == "CANCELLED":
            continue
        start = event["DTSTART"].dt
        if "DTEND" in event:
            end = event["DTEND"].dt
        elif "DURATION" in event:
            end = start + event["DURATION"].dt
        elif isinstance(start, datetime.datetime):
            end = start
        else:
            end = start + datetime.timedelta(days=1)
        all_day = not isinstance(start, datetime.datetime)
        if not all_day:
            start = start if start.tzinfo else start.replace(tzinfo=zone)
            if not isinstance(end, datetime.datetime):
                end = datetime.datetime.combine(end, datetime.time(), zone)
            end = end if end.tzinfo else end.replace(tzinfo=zone)
            start = start.astimezone(datetime.timezone.utc)
            end = end.astimezone(datetime.timezone.utc)
        elif isinstance(end, datetime.datetime):
            end = end.date()
        occurrences.append((all_day, start, end, str(event.get("UID", "")), str(event.get("SUMMARY", ""))))

    days = {}
    day = first_day
    while day < last_day:
        day_start = datetime.datetime.combine(day, datetime.time(), zone).astimezone(datetime.timezone.utc)
        day_end = datetime.datetime.combine(day + datetime.timedelta(days=1), datetime.time(), zone).astimezone(
            datetime.timezone.utc
        )
        rows = []
        for all_day, start, end, uid, summary in occurrences:
            if all_day:
                if start <= day < max(end, start + datetime.timedelta(days=1)):
                    rows.append((start.isoformat(), uid, summary))
            elif (start == end and day_start <= start < day_end) or (start < day_end and end > day_start):
                rows.append((start.astimezone(zone).isoformat(), uid, summary))
        rows.sort()
        days[day.isoformat()] = [{"uid": uid, "start": start, "summary": summary} for start, uid, summary in rows]
        day += datetime.timedelta(days=1)
    return days


def main() -> None:
    if sys.argv[1] == "--batch":
        answer = [occurrences_per_day(*case) for case in json.loads(sys.argv[2])]
    else:
        answer = occurrences_per_day(*sys.argv[1:5])
    json.dump(answer, sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
