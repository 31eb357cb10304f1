"""A key without the household scope: one device, its profile's, and no household calendar; a
write daygate refuses comes back as Home Assistant's error with daygate's reason.
"""

from __future__ import annotations

from collections.abc import Iterator

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import device_registry as dr, entity_registry as er
import pytest

from .conftest import Gateway, entry_for, set_up
from .helpers import entity_id


@pytest.fixture(scope="module")
def profile_gateway() -> Iterator[Gateway]:
    running = Gateway(scopes="read,write")
    yield running
    running.close()


async def test_one_profile(hass: HomeAssistant, profile_gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, profile_gateway)
    await set_up(hass, entry)
    assert entry.title == "daygate"
    devices = dr.async_entries_for_config_entry(dr.async_get(hass), entry.entry_id)
    assert sorted(device.name or "" for device in devices) == ["daygate", "default"]
    summary = await hass.async_add_executor_job(profile_gateway.call, "/v1/summary")
    planned = hass.states.get(entity_id(hass, "sensor", ":default:tasks_planned"))
    assert planned is not None and planned.state == str(summary["tasks_planned"])
    calendars = [
        e for e in er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id) if e.domain == "calendar"
    ]
    assert [e.unique_id.split(":", 1)[1] for e in calendars] == ["default:calendar"]


async def test_a_refused_write_says_why(hass: HomeAssistant, profile_gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, profile_gateway)
    await set_up(hass, entry)
    with pytest.raises(HomeAssistantError) as raised:
        await hass.services.async_call(
            "daygate",
            "volunteer",
            {"config_entry_id": entry.entry_id, "dienst_id": "00000000-0000-0000-0000-000000000000", "name": "Piet"},
            blocking=True,
            return_response=True,
        )
    assert raised.value.translation_key == "write_refused"
    assert (raised.value.translation_placeholders or {}).get("error"), "daygate's reason is passed on"
