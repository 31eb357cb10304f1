"""Finding the integration's entities by what they are, not by generated ids."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er


def entity_id(hass: HomeAssistant, platform: str, unique_suffix: str) -> str:
    """The entity of `platform` whose unique id ends in `unique_suffix` (e.g. ":anna:tasks_planned")."""
    registry = er.async_get(hass)
    found = [
        entry.entity_id
        for entry in registry.entities.values()
        if entry.platform == "daygate" and entry.domain == platform and entry.unique_id.endswith(unique_suffix)
    ]
    assert len(found) == 1, f"{platform} *{unique_suffix}: {found}"
    return found[0]
