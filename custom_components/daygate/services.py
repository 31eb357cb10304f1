"""Actions: log a meal in words (FitIQ) and put a volunteer on a canteen shift (Kantine Koning),
each through the daygate entry named, with an idempotency key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant, ServiceCall, ServiceResponse, SupportsResponse, callback
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import config_validation as cv
import voluptuous as vol

from .const import DOMAIN

if TYPE_CHECKING:
    from . import DaygateRuntime

ATTR_CONFIG_ENTRY = "config_entry_id"
MEAL_TYPES = ["breakfast", "lunch", "dinner", "snack"]

LOG_MEAL_SCHEMA = vol.Schema(
    {
        vol.Required(ATTR_CONFIG_ENTRY): cv.string,
        vol.Required("text"): vol.All(cv.string, vol.Length(min=1, max=1000)),
        vol.Optional("meal_type"): vol.In(MEAL_TYPES),
    }
)
VOLUNTEER_SCHEMA = vol.Schema(
    {
        vol.Required(ATTR_CONFIG_ENTRY): cv.string,
        vol.Required("dienst_id"): cv.string,
        vol.Required("name"): vol.All(cv.string, vol.Length(min=1, max=15)),
        vol.Optional("tenant"): cv.string,
    }
)


def _client(hass: HomeAssistant, call: ServiceCall) -> DaygateRuntime:
    entry_id = call.data[ATTR_CONFIG_ENTRY]
    entry = hass.config_entries.async_get_entry(entry_id)
    if entry is None or entry.domain != DOMAIN:
        raise ServiceValidationError(
            translation_domain=DOMAIN, translation_key="unknown_entry", translation_placeholders={"entry": entry_id}
        )
    if entry.state is not ConfigEntryState.LOADED:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="entry_not_loaded",
            translation_placeholders={"entry": entry.title},
        )
    runtime: DaygateRuntime = entry.runtime_data
    return runtime


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """Registers the actions once, whatever entries there are."""

    async def log_meal(call: ServiceCall) -> ServiceResponse:
        runtime = _client(hass, call)
        return dict(
            await runtime.coordinator.write(runtime.client.log_meal(call.data["text"], call.data.get("meal_type")))
        )

    async def volunteer(call: ServiceCall) -> ServiceResponse:
        runtime = _client(hass, call)
        dienst_id, name, tenant = call.data["dienst_id"], call.data["name"], call.data.get("tenant")
        return dict(await runtime.coordinator.write(runtime.client.volunteer(dienst_id, name, tenant)))

    hass.services.async_register(DOMAIN, "log_meal", log_meal, LOG_MEAL_SCHEMA, SupportsResponse.OPTIONAL)
    hass.services.async_register(DOMAIN, "volunteer", volunteer, VOLUNTEER_SCHEMA, SupportsResponse.OPTIONAL)
