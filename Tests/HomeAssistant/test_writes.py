"""Writes through daygate's own routes: a to-do ticked off is done in Tickedify's simulator,
unticked is back in the inbox, added is in the inbox (also by Assist's HassListAddItem); a
calendar event created and deleted in 8alls; a meal logged in words.
"""

from __future__ import annotations

from datetime import timedelta
import json
import urllib.request

from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from .conftest import Gateway, entry_for, set_up
from .helpers import entity_id

TICKEDIFY_EMAIL = "anna@example.org"
TICKEDIFY_PASSWORD = "Tulpen-Fiets-2026!"


def tickedify_completed(gateway: Gateway) -> list[str]:
    """The ids Tickedify's simulator holds as completed (its own API, logged in as Anna)."""
    base = gateway.simulator("tickedify")
    login = urllib.request.Request(
        base + "/api/auth/login",
        data=json.dumps({"email": TICKEDIFY_EMAIL, "wachtwoord": TICKEDIFY_PASSWORD}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(login, timeout=10) as response:
        cookie = response.headers["Set-Cookie"].split(";")[0]
    listing = urllib.request.Request(base + "/api/lijst/afgewerkt", headers={"Cookie": cookie})
    with urllib.request.urlopen(listing, timeout=10) as response:
        return [str(task["id"]) for task in json.loads(response.read())]


async def test_tick_off_and_back(hass: HomeAssistant, gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    todo = entity_id(hass, "todo", ":tasks_inbox")
    task = (await hass.async_add_executor_job(gateway.call, "/v1/tasks?list=inbox"))["tasks"][0]
    await hass.services.async_call(
        "todo", "update_item", {"item": task["id"], "status": "completed"}, target={"entity_id": todo}, blocking=True
    )
    assert task["id"] in await hass.async_add_executor_job(tickedify_completed, gateway)
    inbox = [t["id"] for t in (await hass.async_add_executor_job(gateway.call, "/v1/tasks?list=inbox"))["tasks"]]
    assert task["id"] not in inbox
    await hass.async_block_till_done()
    items = await hass.services.async_call(
        "todo", "get_items", {}, target={"entity_id": todo}, blocking=True, return_response=True
    )
    done = [i for i in items[todo]["items"] if i["uid"] == task["id"]]  # type: ignore[index]
    assert done and done[0]["status"] == "completed"
    # Unticked: back in the inbox.
    await hass.services.async_call(
        "todo", "update_item", {"item": task["id"], "status": "needs_action"}, target={"entity_id": todo}, blocking=True
    )
    assert task["id"] not in await hass.async_add_executor_job(tickedify_completed, gateway)
    inbox = [t["id"] for t in (await hass.async_add_executor_job(gateway.call, "/v1/tasks?list=inbox"))["tasks"]]
    assert task["id"] in inbox


async def test_add_to_the_inbox_and_by_voice(hass: HomeAssistant, gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    todo = entity_id(hass, "todo", ":tasks_inbox")
    await hass.services.async_call(
        "todo", "add_item", {"item": "Fietsband plakken"}, target={"entity_id": todo}, blocking=True
    )
    titles = [t["title"] for t in (await hass.async_add_executor_job(gateway.call, "/v1/tasks?list=inbox"))["tasks"]]
    assert "Fietsband plakken" in titles
    # Assist's built-in intent: "add bread to my inbox".
    assert await async_setup_component(hass, "todo", {})
    assert await async_setup_component(hass, "intent", {})
    await hass.async_block_till_done()
    name = hass.states.get(todo).name  # type: ignore[union-attr]
    response = await intent.async_handle(
        hass, "test", "HassListAddItem", {"item": {"value": "Brood halen"}, "name": {"value": name}}
    )
    assert response.response_type == intent.IntentResponseType.ACTION_DONE
    titles = [t["title"] for t in (await hass.async_add_executor_job(gateway.call, "/v1/tasks?list=inbox"))["tasks"]]
    assert "Brood halen" in titles


async def test_calendar_event_created_and_deleted(
    hass: HomeAssistant, gateway: Gateway, hass_ws_client: WebSocketGenerator
) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    calendar = entity_id(hass, "calendar", ":anna:calendar")
    start = dt_util.start_of_local_day() + timedelta(days=1, hours=20)
    await hass.services.async_call(
        "calendar",
        "create_event",
        {
            "summary": "Ouderavond",
            "start_date_time": start,
            "end_date_time": start + timedelta(hours=1),
            "location": "School",
        },
        target={"entity_id": calendar},
        blocking=True,
    )
    me = await hass.async_add_executor_job(gateway.call, "/v1/me")
    day = start.astimezone(dt_util.get_time_zone(me["gateway"]["timezone"])).date().isoformat()
    events = (await hass.async_add_executor_job(gateway.call, f"/v1/events?date={day}"))["events"]
    created = [e for e in events if e["title"] == "Ouderavond"]
    assert len(created) == 1 and created[0]["location"] == "School"
    assert dt_util.parse_datetime(created[0]["start"]) == start
    # Home Assistant's calendar card deletes through its websocket API.
    client = await hass_ws_client(hass)
    await client.send_json_auto_id({"type": "calendar/event/delete", "entity_id": calendar, "uid": created[0]["id"]})
    response = await client.receive_json()
    assert response["success"], response
    events = (await hass.async_add_executor_job(gateway.call, f"/v1/events?date={day}"))["events"]
    assert not [e for e in events if e["title"] == "Ouderavond"]


async def test_log_meal(hass: HomeAssistant, gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    answer = await hass.services.async_call(
        "daygate",
        "log_meal",
        {"config_entry_id": entry.entry_id, "text": "twee eieren en toast", "meal_type": "breakfast"},
        blocking=True,
        return_response=True,
    )
    assert answer is not None and answer["meal"]["description"] == "twee eieren en toast"  # type: ignore[index]
    nutrition = await hass.async_add_executor_job(gateway.call, f"/v1/nutrition?date={answer['date']}")
    assert any(m["description"] == "twee eieren en toast" for m in nutrition["meal_logs"])


async def test_volunteer(hass: HomeAssistant, gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    diensten = (await hass.async_add_executor_job(gateway.call, "/v1/diensten?future_days=30"))["diensten"]
    now = dt_util.utcnow()
    open_shift = next(
        d
        for d in diensten
        if d["role"] == "manager"
        and dt_util.parse_datetime(d["start"]) > now  # type: ignore[operator]
        and len(d["volunteers"]) < d["volunteers_needed"]
        and "Piet" not in d["volunteers"]
    )
    answer = await hass.services.async_call(
        "daygate",
        "volunteer",
        {
            "config_entry_id": entry.entry_id,
            "dienst_id": open_shift["id"],
            "name": "Piet",
            "tenant": open_shift["tenant"],
        },
        blocking=True,
        return_response=True,
    )
    assert answer is not None and "Piet" in answer["dienst"]["volunteers"]  # type: ignore[index]
    after = (await hass.async_add_executor_job(gateway.call, "/v1/diensten?future_days=30"))["diensten"]
    assert "Piet" in next(d for d in after if d["id"] == open_shift["id"])["volunteers"]
