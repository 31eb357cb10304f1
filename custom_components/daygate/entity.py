"""The base of every daygate entity: its device (the gateway, or a household member) and name."""

from __future__ import annotations

from typing import Any

from homeassistant.helpers.device_registry import DeviceInfo
from homeassistant.helpers.update_coordinator import CoordinatorEntity

from .const import DOMAIN
from .coordinator import DaygateCoordinator, Subject


def gateway_device(coordinator: DaygateCoordinator) -> DeviceInfo:
    """The gateway itself."""
    identity = coordinator.identity
    return DeviceInfo(
        identifiers={(DOMAIN, identity.gateway_id)},
        name=identity.household_name or "daygate",
        manufacturer="daygate",
        model="Household gateway",
        sw_version=identity.version or None,
        configuration_url=coordinator.client.url + "/",
    )


def subject_device(coordinator: DaygateCoordinator, subject: Subject) -> DeviceInfo:
    """A household member (or the key's profile), under the gateway."""
    identity = coordinator.identity
    return DeviceInfo(
        identifiers={(DOMAIN, f"{identity.gateway_id}:{subject.id}")},
        name=subject.name,
        manufacturer="daygate",
        model="Household member" if identity.household else "Profile",
        via_device=(DOMAIN, identity.gateway_id),
    )


class DaygateEntity(CoordinatorEntity[DaygateCoordinator]):
    """An entity of one subject (or of the gateway when `subject` is None)."""

    _attr_has_entity_name = True

    def __init__(self, coordinator: DaygateCoordinator, subject: Subject | None, key: str) -> None:
        super().__init__(coordinator)
        gateway_id = coordinator.identity.gateway_id
        owner = f"{gateway_id}:{subject.id}" if subject else gateway_id
        self.subject = subject
        self._attr_unique_id = f"{owner}:{key}"
        self._attr_device_info = subject_device(coordinator, subject) if subject else gateway_device(coordinator)


class DaygateSubjectEntity(DaygateEntity):
    """An entity of one subject's summary: unavailable while daygate's answer lacks them."""

    subject: Subject

    @property
    def _summary(self) -> dict[str, Any] | None:
        data = self.coordinator.data
        return data.summaries.get(self.subject.id) if data else None

    @property
    def available(self) -> bool:
        return super().available and self._summary is not None
