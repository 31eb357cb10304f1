"""A backend login only a person can renew is a repair issue in Home Assistant.

daygate says `reauth_required`; the issue goes when the section is well again. (The demo's logins
do not end, so the section report is given to the coordinator as daygate would send it.)
"""

from __future__ import annotations

import copy

from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir

from custom_components.daygate.const import DOMAIN

from .conftest import Gateway, entry_for, set_up


async def test_a_login_that_needs_a_person(hass: HomeAssistant, gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    coordinator = entry.runtime_data.coordinator
    data = copy.deepcopy(coordinator.data)
    data.summaries["bas"].setdefault("sections", {})["nutrition"] = {
        "status": "error",
        "backend": "fitiq",
        "error": {"code": "reauth_required", "message": "FitIQ refused the refresh token for 3 days"},
    }
    coordinator._update_repairs(data)
    issues = [i for i in ir.async_get(hass).issues.values() if i.domain == DOMAIN]
    assert [(i.translation_key, i.translation_placeholders) for i in issues] == [
        ("backend_login", {"backend": "fitiq", "subject": "Bas", "error": "FitIQ refused the refresh token for 3 days"})
    ]
    coordinator._update_repairs(coordinator.data)
    assert not [i for i in ir.async_get(hass).issues.values() if i.domain == DOMAIN]
