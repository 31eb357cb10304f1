"""Every entity shows daygate's own values: the sensors equal /v1/household/summary, the to-do
lists /v1/tasks, the calendar /v1/events; devices for the gateway and each member.
"""

from __future__ import annotations

from datetime import timedelta

from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from homeassistant.util import dt as dt_util

from custom_components.daygate.const import DOMAIN

from .conftest import Gateway, entry_for, set_up
from .helpers import entity_id


async def test_sensors_equal_the_summary(hass: HomeAssistant, gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    household = await hass.async_add_executor_job(gateway.call, "/v1/household/summary")
    for member, summary in household["members"].items():
        planned = hass.states.get(entity_id(hass, "sensor", f":{member}:tasks_planned"))
        assert planned is not None
        assert planned.state == (str(summary["tasks_planned"]) if summary["tasks_planned"] is not None else "unknown")
        shift = hass.states.get(entity_id(hass, "sensor", f":{member}:next_shift"))
        assert shift is not None
        if summary["next_dienst_start"]:
            assert dt_util.parse_datetime(shift.state) == dt_util.parse_datetime(summary["next_dienst_start"])
            assert shift.attributes["club"] == summary["next_dienst_club"]
        calories = hass.states.get(entity_id(hass, "sensor", f":{member}:calories_today"))
        assert calories is not None
        assert calories.state == (str(summary["kcal_today"]) if summary["kcal_today"] is not None else "unknown")
        stale = hass.states.get(entity_id(hass, "binary_sensor", f":{member}:stale"))
        assert stale is not None and stale.state == ("on" if summary["stale"] else "off")
    devices = dr.async_entries_for_config_entry(dr.async_get(hass), entry.entry_id)
    names = sorted(device.name or "" for device in devices)
    assert names == sorted(["De Vries", "Anna", "Bas", "Mila"]), names
    anna = next(d for d in devices if d.name == "Anna")
    gateway_device = next(d for d in devices if d.name == "De Vries")
    assert anna.via_device_id == gateway_device.id
    assert all(identifier[0] == DOMAIN for device in devices for identifier in device.identifiers)


async def test_todo_lists_equal_tickedify_lists(hass: HomeAssistant, gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    for name in ("inbox", "acties", "opvolgen"):
        tasks = (await hass.async_add_executor_job(gateway.call, f"/v1/tasks?list={name}"))["tasks"]
        todo = entity_id(hass, "todo", f":tasks_{name}")
        items = await hass.services.async_call(
            "todo",
            "get_items",
            {"status": ["needs_action"]},
            target={"entity_id": todo},
            blocking=True,
            return_response=True,
        )
        titles = sorted(item["summary"] for item in items[todo]["items"])  # type: ignore[index]
        assert titles == sorted(task["title"] for task in tasks), name
        assert hass.states.get(todo).state == str(len(tasks))  # type: ignore[union-attr]


async def test_calendar_equals_the_events(hass: HomeAssistant, gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    calendar = entity_id(hass, "calendar", ":anna:calendar")
    today = dt_util.now().date()
    answer = await hass.async_add_executor_job(gateway.call, f"/v1/events?from={today}&to={today + timedelta(days=2)}")
    start = dt_util.start_of_local_day()
    events = await hass.services.async_call(
        "calendar",
        "get_events",
        {"start_date_time": start, "end_date_time": start + timedelta(days=3)},
        target={"entity_id": calendar},
        blocking=True,
        return_response=True,
    )
    got = sorted(event["summary"] for event in events[calendar]["events"])  # type: ignore[index]
    assert got == sorted(event["title"] for event in answer["events"])
    household = entity_id(hass, "calendar", ":household_calendar")
    assert hass.states.get(household) is not None
