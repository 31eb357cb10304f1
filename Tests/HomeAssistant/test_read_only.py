"""A key that may only read gives read-only entities: no adding or ticking off, no event
changes, and the actions say the key may not write.
"""

from __future__ import annotations

from collections.abc import Iterator

from homeassistant.components.calendar import CalendarEntityFeature
from homeassistant.components.todo import TodoListEntityFeature
from homeassistant.const import ATTR_SUPPORTED_FEATURES
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ServiceValidationError
import pytest

from .conftest import Gateway, entry_for, set_up
from .helpers import entity_id


@pytest.fixture(scope="module")
def reader() -> Iterator[Gateway]:
    running = Gateway(scopes="read,household")
    yield running
    running.close()


async def test_read_only_entities(hass: HomeAssistant, reader: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, reader)
    await set_up(hass, entry)
    inbox = hass.states.get(entity_id(hass, "todo", ":tasks_inbox"))
    assert (
        inbox is not None
        and inbox.attributes.get(ATTR_SUPPORTED_FEATURES, 0) & TodoListEntityFeature.CREATE_TODO_ITEM == 0
    )
    assert inbox.attributes.get(ATTR_SUPPORTED_FEATURES, 0) & TodoListEntityFeature.UPDATE_TODO_ITEM == 0
    calendar = hass.states.get(entity_id(hass, "calendar", ":anna:calendar"))
    assert (
        calendar is not None
        and calendar.attributes.get(ATTR_SUPPORTED_FEATURES, 0) & CalendarEntityFeature.CREATE_EVENT == 0
    )
    with pytest.raises(ServiceValidationError) as raised:
        await hass.services.async_call(
            "daygate",
            "log_meal",
            {"config_entry_id": entry.entry_id, "text": "appel"},
            blocking=True,
            return_response=True,
        )
    assert raised.value.translation_key == "key_may_not_write"
