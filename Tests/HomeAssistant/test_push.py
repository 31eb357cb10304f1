"""Pushed, not polled: a change daygate sees shows in the entity within a second, through the
change stream; the gateway going away makes the entities unavailable, and back they come.
"""

from __future__ import annotations

import asyncio
import time

from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import HomeAssistant

from .conftest import Gateway, entry_for, set_up
from .helpers import entity_id


async def wait_for(hass: HomeAssistant, condition: object, within: float) -> float:
    """Seconds until `condition()` holds, or an assertion error after `timeout`."""
    started = time.monotonic()
    while not condition():  # type: ignore[operator]
        if time.monotonic() - started > within:
            raise AssertionError(f"not within {within} s")
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def test_a_change_is_pushed_within_a_second(hass: HomeAssistant, gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    coordinator = entry.runtime_data.coordinator
    await wait_for(hass, lambda: coordinator.stream_connected, 10)
    todo = entity_id(hass, "todo", ":tasks_inbox")
    before = int(hass.states.get(todo).state)  # type: ignore[union-attr]
    # Someone adds a task elsewhere (the dashboard, curl): daygate's stream says so.
    await hass.async_add_executor_job(gateway.call, "/v1/tasks", "POST", {"title": "Vuilnis buiten zetten"})
    took = await wait_for(hass, lambda: hass.states.get(todo).state == str(before + 1), 1.0)  # type: ignore[union-attr]
    assert took < 1.0


async def test_the_gateway_gone_and_back(hass: HomeAssistant) -> None:
    gateway = Gateway()
    try:
        entry = await hass.async_add_executor_job(entry_for, gateway)
        await set_up(hass, entry)
        coordinator = entry.runtime_data.coordinator
        sensor = entity_id(hass, "sensor", ":anna:tasks_planned")
        assert hass.states.get(sensor).state != STATE_UNAVAILABLE  # type: ignore[union-attr]
        await hass.async_add_executor_job(gateway.stop)
        # The stream ends with the gateway; the refresh that follows fails.
        await wait_for(hass, lambda: hass.states.get(sensor).state == STATE_UNAVAILABLE, 15)  # type: ignore[union-attr]
        await hass.async_add_executor_job(gateway.start)
        # The stream comes back (back-off from 1 s) and refreshes at once.
        await wait_for(hass, lambda: hass.states.get(sensor).state != STATE_UNAVAILABLE, 30)  # type: ignore[union-attr]
        assert coordinator.stream_connected
    finally:
        gateway.close()
