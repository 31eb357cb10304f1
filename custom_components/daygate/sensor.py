"""Sensors: a member's (or the profile's) day in numbers and times, from daygate's summary."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from homeassistant.components.sensor import SensorDeviceClass, SensorEntity, SensorEntityDescription, SensorStateClass
from homeassistant.const import EntityCategory, UnitOfTime
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.util import dt as dt_util

from . import DaygateConfigEntry
from .coordinator import DaygateCoordinator, Subject
from .entity import DaygateSubjectEntity

# Values come from the coordinator; the stream says when they change.
PARALLEL_UPDATES = 0


def _time(value: Any) -> datetime | None:
    return dt_util.parse_datetime(value) if isinstance(value, str) else None


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value[:255] if isinstance(value, str) and value else None


@dataclass(frozen=True, kw_only=True)
class DaygateSensorDescription(SensorEntityDescription):
    """A sensor of one summary value; `attributes` adds what goes with it."""

    value_fn: Callable[[dict[str, Any]], Any]
    attributes_fn: Callable[[dict[str, Any]], dict[str, Any]] | None = None


SENSORS: tuple[DaygateSensorDescription, ...] = (
    DaygateSensorDescription(
        key="tasks_planned",
        translation_key="tasks_planned",
        state_class=SensorStateClass.MEASUREMENT,
        value_fn=lambda s: _number(s.get("tasks_planned")),
        attributes_fn=lambda s: {"open_titles": (s.get("tasks") or {}).get("open_titles") or []},
    ),
    DaygateSensorDescription(
        key="tasks_done",
        translation_key="tasks_done",
        state_class=SensorStateClass.MEASUREMENT,
        value_fn=lambda s: _number(s.get("tasks_done")),
    ),
    DaygateSensorDescription(
        key="next_task",
        translation_key="next_task",
        value_fn=lambda s: _text(s.get("next_task_title")),
        attributes_fn=lambda s: {"task_id": s.get("next_task_id"), "start": s.get("next_task_start")},
    ),
    DaygateSensorDescription(
        key="next_task_start",
        translation_key="next_task_start",
        device_class=SensorDeviceClass.TIMESTAMP,
        value_fn=lambda s: _time(s.get("next_task_start")),
    ),
    DaygateSensorDescription(
        key="next_event",
        translation_key="next_event",
        value_fn=lambda s: _text(s.get("next_event_title")),
    ),
    DaygateSensorDescription(
        key="next_event_start",
        translation_key="next_event_start",
        device_class=SensorDeviceClass.TIMESTAMP,
        value_fn=lambda s: _time(s.get("next_event_start")),
    ),
    DaygateSensorDescription(
        key="next_shift",
        translation_key="next_shift",
        device_class=SensorDeviceClass.TIMESTAMP,
        value_fn=lambda s: _time(s.get("next_dienst_start")),
        attributes_fn=lambda s: {"club": s.get("next_dienst_club")},
    ),
    DaygateSensorDescription(
        key="calories_today",
        translation_key="calories_today",
        native_unit_of_measurement="kcal",
        state_class=SensorStateClass.MEASUREMENT,
        value_fn=lambda s: _number(s.get("kcal_today")),
        attributes_fn=lambda s: {"goal": (s.get("nutrition") or {}).get("goal_calories")},
    ),
    DaygateSensorDescription(
        key="calories_remaining",
        translation_key="calories_remaining",
        native_unit_of_measurement="kcal",
        state_class=SensorStateClass.MEASUREMENT,
        value_fn=lambda s: _number(s.get("kcal_remaining")),
    ),
    DaygateSensorDescription(
        key="data_age",
        translation_key="data_age",
        device_class=SensorDeviceClass.DURATION,
        native_unit_of_measurement=UnitOfTime.SECONDS,
        entity_category=EntityCategory.DIAGNOSTIC,
        entity_registry_enabled_default=False,
        value_fn=lambda s: _number(s.get("age_seconds")),
    ),
)


async def async_setup_entry(
    hass: HomeAssistant, entry: DaygateConfigEntry, async_add_entities: AddConfigEntryEntitiesCallback
) -> None:
    """A set of sensors per household member (or for the key's profile)."""
    coordinator = entry.runtime_data.coordinator
    async_add_entities(
        DaygateSensor(coordinator, subject, description)
        for subject in coordinator.identity.subjects
        for description in SENSORS
    )


class DaygateSensor(DaygateSubjectEntity, SensorEntity):
    """One summary value of one subject."""

    entity_description: DaygateSensorDescription

    def __init__(
        self, coordinator: DaygateCoordinator, subject: Subject, description: DaygateSensorDescription
    ) -> None:
        super().__init__(coordinator, subject, description.key)
        self.entity_description = description

    @property
    def native_value(self) -> Any:
        summary = self._summary
        return self.entity_description.value_fn(summary) if summary is not None else None

    @property
    def extra_state_attributes(self) -> dict[str, Any] | None:
        summary = self._summary
        if summary is None or self.entity_description.attributes_fn is None:
            return None
        return self.entity_description.attributes_fn(summary)
