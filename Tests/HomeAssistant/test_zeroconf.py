"""Found without typing a URL: a gateway announcing `_daygate._tcp` is offered, and only the key
is asked for.
"""

from __future__ import annotations

from ipaddress import ip_address

from homeassistant import config_entries
from homeassistant.const import CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers.service_info.zeroconf import ZeroconfServiceInfo
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.daygate.const import CONF_KEY, DOMAIN

from .conftest import Gateway, entry_for
from .test_config_flow import free_port


def announcement(gateway: Gateway, properties: dict[str, str] | None = None) -> ZeroconfServiceInfo:
    return ZeroconfServiceInfo(
        ip_address=ip_address("127.0.0.1"),
        ip_addresses=[ip_address("127.0.0.1")],
        port=gateway.port,
        hostname="daygate.local.",
        type="_daygate._tcp.local.",
        name="daygate._daygate._tcp.local.",
        properties=properties or {"path": "/"},
    )


async def test_discovered(hass: HomeAssistant, gateway: Gateway) -> None:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_ZEROCONF}, data=announcement(gateway)
    )
    assert result["type"] is FlowResultType.FORM and result["step_id"] == "zeroconf_confirm"
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {CONF_KEY: gateway.key})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {CONF_URL: gateway.url, CONF_KEY: gateway.key}
    await hass.async_block_till_done()
    # Announced again: already set up.
    again = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_ZEROCONF}, data=announcement(gateway)
    )
    assert again["type"] is FlowResultType.ABORT and again["reason"] == "already_configured"


async def test_a_known_gateway_at_a_new_address(hass: HomeAssistant, gateway: Gateway) -> None:
    """The gateway moved (another port, a new DHCP lease): the announcement brings the entry along."""
    entry = await hass.async_add_executor_job(entry_for, gateway)
    old_url = f"http://127.0.0.1:{free_port()}"
    moved = MockConfigEntry(
        domain=DOMAIN, title=entry.title, unique_id=entry.unique_id, data={**entry.data, CONF_URL: old_url}
    )
    moved.add_to_hass(hass)
    await hass.config_entries.async_setup(moved.entry_id)
    await hass.async_block_till_done()
    assert moved.state is config_entries.ConfigEntryState.SETUP_RETRY
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_ZEROCONF}, data=announcement(gateway)
    )
    assert result["type"] is FlowResultType.ABORT and result["reason"] == "already_configured"
    await hass.async_block_till_done()
    assert moved.data[CONF_URL] == gateway.url
    assert moved.state is config_entries.ConfigEntryState.LOADED
