"""Actions: log a meal in words (FitIQ) and put a volunteer on a canteen shift (Kantine Koning),
each through the daygate entry named, with an idempotency key.
"""

from __future__ import annotations

from typing import Any

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant, ServiceCall, ServiceResponse, SupportsResponse, callback
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
from homeassistant.helpers import config_validation as cv
import voluptuous as vol

from .api import DaygateApiError, DaygateError, DaygateForbiddenError
from .const import DOMAIN

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


def _client(hass: HomeAssistant, call: ServiceCall) -> Any:
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
    return entry.runtime_data


async def _run(call: Any) -> dict[str, Any]:
    try:
        return dict(await call)
    except DaygateForbiddenError as err:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="key_may_not_write",
            translation_placeholders={"error": err.message},
        ) from err
    except DaygateApiError as err:
        raise HomeAssistantError(
            translation_domain=DOMAIN, translation_key="write_refused", translation_placeholders={"error": err.message}
        ) from err
    except DaygateError as err:
        raise HomeAssistantError(
            translation_domain=DOMAIN, translation_key="write_failed", translation_placeholders={"error": str(err)}
        ) from err


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """Registers the actions once, whatever entries there are."""

    async def log_meal(call: ServiceCall) -> ServiceResponse:
        runtime = _client(hass, call)
        answer = await _run(runtime.client.log_meal(call.data["text"], call.data.get("meal_type")))
        await runtime.coordinator.async_request_refresh()
        return answer

    async def volunteer(call: ServiceCall) -> ServiceResponse:
        runtime = _client(hass, call)
        answer = await _run(
            runtime.client.volunteer(call.data["dienst_id"], call.data["name"], call.data.get("tenant"))
        )
        await runtime.coordinator.async_request_refresh()
        return answer

    hass.services.async_register(DOMAIN, "log_meal", log_meal, LOG_MEAL_SCHEMA, SupportsResponse.OPTIONAL)
    hass.services.async_register(DOMAIN, "volunteer", volunteer, VOLUNTEER_SCHEMA, SupportsResponse.OPTIONAL)
