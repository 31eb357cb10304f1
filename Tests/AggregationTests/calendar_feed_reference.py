"""Reads a daygate calendar feed with Python's icalendar and prints what a calendar app sees.

For every VEVENT: its UID, SUMMARY and its start and end as UTC epoch seconds, read twice — with
the IANA zone its TZID names (zoneinfo) and with the feed's own VTIMEZONE (built by icalendar
without looking the name up) — or as dates for all-day events. Usage: python3 <this> FEED.ics
"""
import datetime
import json
import sys

import icalendar


def main(path):
    with open(path, "rb") as f:
        cal = icalendar.Calendar.from_ical(f.read())
    zones = {str(tz["TZID"]): tz.to_tz(lookup_tzid=False) for tz in cal.walk("VTIMEZONE")}
    out = []
    for event in cal.walk("VEVENT"):
        row = {"uid": str(event["UID"]), "summary": str(event["SUMMARY"])}
        for name in ("DTSTART", "DTEND"):
            value = event.decoded(name)
            if isinstance(value, datetime.datetime):
                tzid = event[name].params.get("TZID")
                own = zones[tzid] if tzid else None
                naive = value.replace(tzinfo=None)
                row[name.lower()] = int(value.timestamp())
                row[name.lower() + "_vtimezone"] = int(naive.replace(tzinfo=own).timestamp()) if own else None
            else:
                row[name.lower()] = value.isoformat()
        for name in ("LOCATION", "DESCRIPTION"):
            if name in event:
                row[name.lower()] = str(event[name])
        out.append(row)
    json.dump({"events": out, "name": str(cal.get("X-WR-CALNAME", ""))}, sys.stdout)


main(sys.argv[1])
