"""Binary sensors: whether a member's (or the profile's) values are complete and fresh."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from homeassistant.components.binary_sensor import (
    BinarySensorDeviceClass,
    BinarySensorEntity,
    BinarySensorEntityDescription,
)
from homeassistant.const import EntityCategory
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from . import DaygateConfigEntry
from .coordinator import DaygateCoordinator, Subject
from .entity import DaygateSubjectEntity

PARALLEL_UPDATES = 0


@dataclass(frozen=True, kw_only=True)
class DaygateBinarySensorDescription(BinarySensorEntityDescription):
    """A yes/no of one summary."""

    value_fn: Callable[[dict[str, Any]], bool | None]


BINARY_SENSORS: tuple[DaygateBinarySensorDescription, ...] = (
    DaygateBinarySensorDescription(
        key="stale",
        translation_key="stale",
        device_class=BinarySensorDeviceClass.PROBLEM,
        entity_category=EntityCategory.DIAGNOSTIC,
        value_fn=lambda s: bool(s.get("stale")) if "stale" in s else None,
    ),
    DaygateBinarySensorDescription(
        key="complete",
        translation_key="complete",
        entity_category=EntityCategory.DIAGNOSTIC,
        value_fn=lambda s: bool(s.get("complete")) if "complete" in s else None,
    ),
)


async def async_setup_entry(
    hass: HomeAssistant, entry: DaygateConfigEntry, async_add_entities: AddConfigEntryEntitiesCallback
) -> None:
    """Two binary sensors per household member (or for the key's profile)."""
    coordinator = entry.runtime_data.coordinator
    async_add_entities(
        DaygateBinarySensor(coordinator, subject, description)
        for subject in coordinator.identity.subjects
        for description in BINARY_SENSORS
    )


class DaygateBinarySensor(DaygateSubjectEntity, BinarySensorEntity):
    """One yes/no of one subject."""

    entity_description: DaygateBinarySensorDescription

    def __init__(
        self, coordinator: DaygateCoordinator, subject: Subject, description: DaygateBinarySensorDescription
    ) -> None:
        super().__init__(coordinator, subject, description.key)
        self.entity_description = description

    @property
    def is_on(self) -> bool | None:
        summary = self._summary
        return self.entity_description.value_fn(summary) if summary is not None else None
