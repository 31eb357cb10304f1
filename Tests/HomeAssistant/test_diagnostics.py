"""Diagnostics hold no secret: the key is redacted."""

from __future__ import annotations

import json

from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.components.diagnostics import get_diagnostics_for_config_entry
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from .conftest import Gateway, entry_for, set_up


async def test_diagnostics_redact_the_key(
    hass: HomeAssistant, gateway: Gateway, hass_client: ClientSessionGenerator
) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    diagnostics = await get_diagnostics_for_config_entry(hass, hass_client, entry)
    text = json.dumps(diagnostics)
    assert gateway.key not in text
    assert diagnostics["entry"]["key"] == "**REDACTED**"
    assert diagnostics["identity"]["scopes"] == ["household", "read", "write"]
    assert diagnostics["identity"]["subjects"] == ["anna", "bas", "mila"]
