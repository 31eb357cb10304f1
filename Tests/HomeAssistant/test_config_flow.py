"""The config flow against the real gateway: a wrong key, no gateway, the right key, a second
time (no duplicate), reauthentication and reconfiguration.
"""

from __future__ import annotations

import socket

from homeassistant import config_entries
from homeassistant.const import CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType

from custom_components.daygate.const import CONF_KEY, DOMAIN

from .conftest import OTHER_KEY, Gateway, entry_for, set_up


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_user_flow(hass: HomeAssistant, gateway: Gateway) -> None:
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})
    assert result["type"] is FlowResultType.FORM and result["step_id"] == "user"

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: gateway.url, CONF_KEY: "not-the-key-000000000"}
    )
    assert result["type"] is FlowResultType.FORM and result["errors"] == {"base": "invalid_auth"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: f"http://127.0.0.1:{free_port()}", CONF_KEY: gateway.key}
    )
    assert result["errors"] == {"base": "cannot_connect"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: "ftp://x", CONF_KEY: gateway.key}
    )
    assert result["errors"] == {CONF_URL: "invalid_url"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: gateway.url + "/", CONF_KEY: gateway.key}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "De Vries (default)"
    assert result["data"] == {CONF_URL: gateway.url, CONF_KEY: gateway.key}
    me = await hass.async_add_executor_job(gateway.call, "/v1/me")
    assert result["result"].unique_id == f"{me['gateway']['id']}:default"
    await hass.async_block_till_done()

    # The same gateway and profile again: refused.
    again = await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})
    again = await hass.config_entries.flow.async_configure(
        again["flow_id"], {CONF_URL: gateway.url, CONF_KEY: gateway.key}
    )
    assert again["type"] is FlowResultType.ABORT and again["reason"] == "already_configured"


async def test_reauth_when_the_key_is_revoked(hass: HomeAssistant) -> None:
    gateway = Gateway()
    try:
        entry = await hass.async_add_executor_job(entry_for, gateway)
        await set_up(hass, entry)
        # daygate restarts with another key: Home Assistant's is revoked.
        gateway.stop()
        gateway.start(OTHER_KEY)
        await entry.runtime_data.coordinator.async_refresh()
        await hass.async_block_till_done()
        flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
        assert [flow["context"]["source"] for flow in flows] == [config_entries.SOURCE_REAUTH]
        flow_id = flows[0]["flow_id"]
        result = await hass.config_entries.flow.async_configure(flow_id, {CONF_KEY: "still-not-the-key-0000"})
        assert result["errors"] == {"base": "invalid_auth"}
        result = await hass.config_entries.flow.async_configure(flow_id, {CONF_KEY: OTHER_KEY})
        assert result["type"] is FlowResultType.ABORT and result["reason"] == "reauth_successful"
        await hass.async_block_till_done()
        assert entry.data[CONF_KEY] == OTHER_KEY
        assert entry.state is config_entries.ConfigEntryState.LOADED
    finally:
        gateway.close()


async def test_reconfigure(hass: HomeAssistant, gateway: Gateway) -> None:
    entry = await hass.async_add_executor_job(entry_for, gateway)
    await set_up(hass, entry)
    result = await entry.start_reconfigure_flow(hass)
    assert result["step_id"] == "reconfigure"
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: gateway.url + "/", CONF_KEY: gateway.key}
    )
    assert result["type"] is FlowResultType.ABORT and result["reason"] == "reconfigure_successful"
    assert entry.data[CONF_URL] == gateway.url
    await hass.async_block_till_done()
    assert entry.state is config_entries.ConfigEntryState.LOADED
    # Another gateway (its own state folder, so its own id) is not this entry's.
    other = Gateway()
    try:
        result = await entry.start_reconfigure_flow(hass)
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_URL: other.url, CONF_KEY: other.key}
        )
        assert result["type"] is FlowResultType.ABORT and result["reason"] == "wrong_profile"
        assert entry.data[CONF_URL] == gateway.url
    finally:
        other.close()
