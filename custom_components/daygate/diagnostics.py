"""Diagnostics: who the key is and what daygate answered, the key redacted."""

from __future__ import annotations

from typing import Any

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.core import HomeAssistant

from . import DaygateConfigEntry
from .const import CONF_KEY

TO_REDACT = {CONF_KEY, "Authorization", "authorization"}


async def async_get_config_entry_diagnostics(hass: HomeAssistant, entry: DaygateConfigEntry) -> dict[str, Any]:
    """The entry (key redacted), the key's identity, the stream's state and the latest values."""
    coordinator = entry.runtime_data.coordinator
    identity = coordinator.identity
    data = coordinator.data
    return {
        "entry": async_redact_data(dict(entry.data), TO_REDACT),
        "identity": {
            "gateway_id": identity.gateway_id,
            "version": identity.version,
            "timezone": identity.timezone,
            "profile": identity.profile,
            "scopes": sorted(identity.scopes),
            "household": identity.household_name,
            "subjects": [subject.id for subject in identity.subjects],
        },
        "stream_connected": coordinator.stream_connected,
        "last_update_success": coordinator.last_update_success,
        "summaries": async_redact_data(data.summaries, TO_REDACT) if data else None,
        "events": len(data.events) if data else None,
        "tasks": {name: len(tasks) for name, tasks in data.tasks.items()} if data else None,
        "done_today": len(data.done) if data else None,
    }
