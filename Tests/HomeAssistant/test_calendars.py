"""The other calendars and the edges of the own one, against the demo: the household's and a
member's calendar hold what /v1/household/today holds for them; an all-day event is created,
renamed and deleted in 8alls; a repeating event and a renamed task are refused with a reason.
"""

from __future__ import annotations

from datetime import timedelta

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ServiceValidationError
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from .conftest import Gateway, entry_for, set_up
from .helpers import entity_id


async def events_of(hass: HomeAssistant, calendar: str, days: int) -> list[dict[str, str]]:
    start = dt_util.start_of_local_day()
    answer = await hass.services.async_call(
        "calendar",
        "get_events",
        {"start_date_time": start, "end_date_time": start + timedelta(days=days)},
        target={"entity_id": calendar},
        blocking=True,
        return_response=True,
    )
    return list(answer[calendar]["events"])  # type: ignore[index,arg-type]


async def test_household_and_member_calendars(hass: HomeAssistant, gateway: Gateway) -> None:
    # Home Assistant in the household's zone, as a household runs it. An all-day event is a date
    # in Home Assistant's own zone (its convention for date events): in the harness's default
    # zone (US/Pacific) the all-day event two days ahead fell outside Home Assistant's two-day
    # window while its start in the gateway's zone fell inside, at some hours of the day.
    timezone = (await hass.async_add_executor_job(gateway.call, "/v1/me"))["gateway"]["timezone"]
    await hass.config.async_set_time_zone(timezone)
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    zone = dt_util.get_time_zone(timezone)
    start = dt_util.start_of_local_day()
    days = sorted({(start + timedelta(hours=h)).astimezone(zone).date() for h in range(0, 49)})
    everyone: dict[str, dict[str, object]] = {}
    for day in days:
        for event in (await hass.async_add_executor_job(gateway.call, f"/v1/household/today?date={day}"))["events"]:
            everyone.setdefault(event["id"], event)

    def in_window(event: dict[str, object]) -> bool:
        begins = dt_util.parse_datetime(str(event["start"]))
        ends = dt_util.parse_datetime(str(event.get("end") or event["start"]))
        return bool(begins and ends and begins < start + timedelta(days=2) and ends > start)

    household = await events_of(hass, entity_id(hass, "calendar", ":household_calendar"), 2)
    expected = sorted(str(e["title"]) for e in everyone.values() if in_window(e))
    assert sorted(e["summary"] for e in household) == expected
    bas = await events_of(hass, entity_id(hass, "calendar", ":bas:calendar"), 2)
    theirs = [e for e in everyone.values() if e.get("member") == "bas" or "bas" in (e.get("members") or [])]  # type: ignore[operator]
    assert sorted(e["summary"] for e in bas) == sorted(str(e["title"]) for e in theirs if in_window(e))
    assert bas, "Bas shares the school's calendar"


async def test_an_all_day_event_and_what_is_refused(
    hass: HomeAssistant, gateway: Gateway, hass_ws_client: WebSocketGenerator
) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    calendar = entity_id(hass, "calendar", ":anna:calendar")
    me = await hass.async_add_executor_job(gateway.call, "/v1/me")
    day = dt_util.now(dt_util.get_time_zone(me["gateway"]["timezone"])).date() + timedelta(days=3)
    await hass.services.async_call(
        "calendar",
        "create_event",
        {"summary": "Sportdag", "start_date": day, "end_date": day + timedelta(days=1)},
        target={"entity_id": calendar},
        blocking=True,
    )
    created = [
        e
        for e in (await hass.async_add_executor_job(gateway.call, f"/v1/events?date={day}"))["events"]
        if e["title"] == "Sportdag"
    ]
    assert len(created) == 1 and created[0]["all_day"] is True
    client = await hass_ws_client(hass)
    await client.send_json_auto_id(
        {
            "type": "calendar/event/update",
            "entity_id": calendar,
            "uid": created[0]["id"],
            "event": {
                "summary": "Sportdag (verplaatst)",
                "dtstart": day.isoformat(),
                "dtend": (day + timedelta(days=1)).isoformat(),
            },
        }
    )
    response = await client.receive_json()
    assert response["success"], response
    titles = [e["title"] for e in (await hass.async_add_executor_job(gateway.call, f"/v1/events?date={day}"))["events"]]
    assert "Sportdag (verplaatst)" in titles and "Sportdag" not in titles
    await client.send_json_auto_id({"type": "calendar/event/delete", "entity_id": calendar, "uid": created[0]["id"]})
    assert (await client.receive_json())["success"]
    # A repeating event: daygate takes single events only.
    await client.send_json_auto_id(
        {
            "type": "calendar/event/create",
            "entity_id": calendar,
            "event": {
                "summary": "Elke week",
                "dtstart": day.isoformat(),
                "dtend": (day + timedelta(days=1)).isoformat(),
                "rrule": "FREQ=WEEKLY",
            },
        }
    )
    refused = await client.receive_json()
    assert not refused["success"] and "repeating" in refused["error"]["message"], refused
    # A task renamed from the to-do card: daygate cannot rename.
    todo = entity_id(hass, "todo", ":tasks_inbox")
    task = (await hass.async_add_executor_job(gateway.call, "/v1/tasks?list=inbox"))["tasks"][0]
    with pytest.raises(ServiceValidationError) as raised:
        await hass.services.async_call(
            "todo",
            "update_item",
            {"item": task["id"], "rename": "Iets anders"},
            target={"entity_id": todo},
            blocking=True,
        )
    assert raised.value.translation_key == "no_rename"
