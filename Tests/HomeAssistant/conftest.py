"""The integration's tests run against the real gateway: `daygate demo` (its household of
three, with a client key) on a free port, started by the fixtures below, and Home Assistant's
own test harness (`pytest-homeassistant-custom-component`: the `hass` fixture).
"""

from __future__ import annotations

from collections.abc import Iterator
import json
import os
import shutil
import sys
import tempfile
from typing import Any
import urllib.request

from homeassistant.const import CONF_URL
from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
import demo_process

from custom_components.daygate.const import CONF_KEY, DOMAIN

KEY = "home-assistant-test-key-0123456789"
OTHER_KEY = "home-assistant-other-key-9876543210"
BINARY = os.environ.get("DAYGATE_BINARY") or demo_process.BINARY


class Gateway:
    """`daygate demo` with a client key, restartable on its port and state folder."""

    def __init__(self, key: str = KEY, scopes: str | None = None) -> None:
        self.state = tempfile.mkdtemp(prefix="daygate-ha-")
        self.port = 0
        self.demo: demo_process.Demo | None = None
        self.start(key, scopes)

    def start(self, key: str = KEY, scopes: str | None = None) -> None:
        demo_process.BINARY = BINARY
        extra = ["--client-key", key] + (["--client-scopes", scopes] if scopes else [])
        self.demo = demo_process.Demo(self.state, port=self.port, extra_args=extra)
        self.port = self.demo.port
        self.url = self.demo.url
        self.key = key

    def stop(self) -> None:
        if self.demo:
            self.demo.stop()
            self.demo = None

    def close(self) -> None:
        """Stops the demo for good and removes its state folder."""
        self.stop()
        shutil.rmtree(self.state, ignore_errors=True)

    def call(self, path: str, method: str = "GET", body: dict[str, Any] | None = None, key: str | None = None) -> Any:
        """Daygate's answer to a request (blocking: call it with hass.async_add_executor_job)."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {key or self.key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            return json.loads(text) if text else None

    def simulator(self, name: str) -> str:
        assert self.demo is not None
        return self.demo.simulators[name]


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: None) -> None:
    """Home Assistant loads custom_components/daygate."""


@pytest.fixture(autouse=True)
def allow_loopback(socket_enabled: None) -> None:
    """The tests talk to the real gateway on loopback."""


@pytest.fixture(scope="module")
def gateway() -> Iterator[Gateway]:
    """The demo with a key that may read, write and read the household."""
    running = Gateway()
    yield running
    running.close()


def entry_for(gateway: Gateway, key: str | None = None) -> MockConfigEntry:
    me = gateway.call("/v1/me", key=key)
    return MockConfigEntry(
        domain=DOMAIN,
        title="daygate",
        unique_id=f"{me['gateway']['id']}:{me['profile']}",
        data={CONF_URL: gateway.url, CONF_KEY: key or gateway.key},
    )


async def set_up(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
