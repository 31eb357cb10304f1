"""daygate: a household's day (calendars, to-do lists, per-person sensors and actions) from a
daygate gateway on the local network, pushed by its change stream.
"""

from __future__ import annotations

from dataclasses import dataclass

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import CONF_URL, Platform
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryAuthFailed, ConfigEntryNotReady
from homeassistant.helpers import config_validation as cv, device_registry as dr
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.typing import ConfigType

from .api import DaygateAuthError, DaygateClient, DaygateError
from .const import CONF_KEY, DOMAIN
from .coordinator import DaygateCoordinator, DaygateIdentity
from .entity import gateway_device
from .services import async_setup_services

PLATFORMS: list[Platform] = [Platform.BINARY_SENSOR, Platform.CALENDAR, Platform.SENSOR, Platform.TODO]
CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)


@dataclass(slots=True)
class DaygateRuntime:
    """What a loaded entry holds."""

    client: DaygateClient
    coordinator: DaygateCoordinator


type DaygateConfigEntry = ConfigEntry[DaygateRuntime]


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool | None:
    """The actions (they name the entry they act through)."""
    async_setup_services(hass)
    return True


async def async_setup_entry(hass: HomeAssistant, entry: DaygateConfigEntry) -> bool:
    """Asks daygate who the key is, reads the day once, then follows the change stream."""
    client = DaygateClient(async_get_clientsession(hass), entry.data[CONF_URL], entry.data.get(CONF_KEY))
    try:
        me = await client.me()
    except DaygateAuthError as err:
        raise ConfigEntryAuthFailed(
            translation_domain=DOMAIN, translation_key="key_refused", translation_placeholders={"error": err.message}
        ) from err
    except DaygateError as err:
        raise ConfigEntryNotReady(
            translation_domain=DOMAIN, translation_key="not_reachable", translation_placeholders={"error": str(err)}
        ) from err
    identity = DaygateIdentity.from_answer(me)
    coordinator = DaygateCoordinator(hass, entry, client, identity)
    await coordinator.async_config_entry_first_refresh()
    entry.runtime_data = DaygateRuntime(client, coordinator)
    # The gateway's device first: each member's device names it as the one it is reached through.
    dr.async_get(hass).async_get_or_create(config_entry_id=entry.entry_id, **gateway_device(coordinator))
    _remove_stale_devices(hass, entry, identity)
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    coordinator.start_stream()
    return True


async def async_unload_entry(hass: HomeAssistant, entry: DaygateConfigEntry) -> bool:
    """Unloads the platforms; the stream ends with the entry."""
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)


def _remove_stale_devices(hass: HomeAssistant, entry: DaygateConfigEntry, identity: DaygateIdentity) -> None:
    """A member who left the household (or a profile the key no longer maps to) loses their device."""
    registry = dr.async_get(hass)
    current = {identity.gateway_id} | {f"{identity.gateway_id}:{subject.id}" for subject in identity.subjects}
    for device in dr.async_entries_for_config_entry(registry, entry.entry_id):
        if not any(domain == DOMAIN and ident in current for domain, ident in device.identifiers):
            registry.async_update_device(device.id, remove_config_entry_id=entry.entry_id)
