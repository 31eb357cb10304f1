"""Setting daygate up: its address and a client key, tested before anything is saved; found on
the network by zeroconf when the gateway announces itself; reauthentication when the key is
refused; reconfiguration of the address or key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from homeassistant.config_entries import ConfigFlow, ConfigFlowResult
from homeassistant.const import CONF_URL
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.selector import TextSelector, TextSelectorConfig, TextSelectorType
from homeassistant.helpers.service_info.zeroconf import ZeroconfServiceInfo
import voluptuous as vol

from .api import DaygateAuthError, DaygateClient, DaygateError, DaygateForbiddenError
from .const import CONF_KEY, DOMAIN, LOGGER
from .coordinator import DaygateIdentity

DEFAULT_URL = "http://127.0.0.1:8787"
KEY_SELECTOR = TextSelector(TextSelectorConfig(type=TextSelectorType.PASSWORD))


def _schema(url: str = DEFAULT_URL) -> vol.Schema:
    return vol.Schema(
        {
            vol.Required(CONF_URL, default=url): TextSelector(TextSelectorConfig(type=TextSelectorType.URL)),
            vol.Optional(CONF_KEY): KEY_SELECTOR,
        }
    )


def _normal_url(url: str) -> str | None:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


class DaygateConfigFlow(ConfigFlow, domain=DOMAIN):
    """The config flow."""

    VERSION = 1

    def __init__(self) -> None:
        self._url: str | None = None

    async def _test(self, url: str, key: str | None) -> tuple[DaygateIdentity | None, dict[str, str]]:
        """Who the key is at `url`, or the form's errors."""
        client = DaygateClient(async_get_clientsession(self.hass), url, key)
        try:
            identity = DaygateIdentity.from_answer(await client.me())
        except DaygateAuthError:
            return None, {"base": "invalid_auth"}
        except DaygateForbiddenError:
            return None, {"base": "no_read_scope"}
        except DaygateError as err:
            LOGGER.debug("daygate at %s: %s", url, err)
            return None, {"base": "cannot_connect"}
        if not identity.gateway_id:
            return None, {"base": "not_daygate"}
        return identity, {}

    async def _test_form(
        self, user_input: dict[str, Any]
    ) -> tuple[str | None, str | None, DaygateIdentity | None, dict[str, str]]:
        """The form's address (normalised) and key, and who the key is there, or the errors."""
        url = _normal_url(user_input[CONF_URL])
        if url is None:
            return None, None, None, {CONF_URL: "invalid_url"}
        key = user_input.get(CONF_KEY) or None
        identity, errors = await self._test(url, key)
        return url, key, identity, errors

    @staticmethod
    def _title(identity: DaygateIdentity) -> str:
        if identity.household:
            return f"{identity.household_name} ({identity.profile})"
        return f"daygate ({identity.profile})"

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """The address and the key."""
        errors: dict[str, str] = {}
        if user_input is not None:
            url, key, identity, errors = await self._test_form(user_input)
            if identity is not None:
                await self.async_set_unique_id(f"{identity.gateway_id}:{identity.profile}")
                self._abort_if_unique_id_configured(updates={CONF_URL: url, CONF_KEY: key})
                return self.async_create_entry(title=self._title(identity), data={CONF_URL: url, CONF_KEY: key})
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(_schema(self._url or DEFAULT_URL), user_input),
            errors=errors,
        )

    async def async_step_zeroconf(self, discovery_info: ZeroconfServiceInfo) -> ConfigFlowResult:
        """A gateway announcing itself (`_daygate._tcp`): its address, then the key."""
        host = discovery_info.host
        host = f"[{host}]" if ":" in host else host
        path = str(discovery_info.properties.get("path") or "")
        url = _normal_url(f"http://{host}:{discovery_info.port}{path}")
        if url is None:
            return self.async_abort(reason="not_daygate")
        # A gateway already set up, now at another address: each entry's key asks the announced
        # address who it is, and the entry of the same gateway and profile moves there.
        for entry in self._async_current_entries(include_ignore=False):
            if entry.data.get(CONF_URL) == url:
                return self.async_abort(reason="already_configured")
            client = DaygateClient(async_get_clientsession(self.hass), url, entry.data.get(CONF_KEY))
            try:
                identity = DaygateIdentity.from_answer(await client.me())
            except DaygateError:
                continue
            if entry.unique_id == f"{identity.gateway_id}:{identity.profile}":
                self.hass.config_entries.async_update_entry(entry, data={**entry.data, CONF_URL: url})
                self.hass.config_entries.async_schedule_reload(entry.entry_id)
                return self.async_abort(reason="already_configured")
        self._async_abort_entries_match({CONF_URL: url})
        self._url = url
        self.context["title_placeholders"] = {"name": discovery_info.name.split(".")[0]}
        return await self.async_step_zeroconf_confirm()

    async def async_step_zeroconf_confirm(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """The key for a discovered gateway."""
        assert self._url is not None
        errors: dict[str, str] = {}
        if user_input is not None:
            key = user_input.get(CONF_KEY) or None
            identity, errors = await self._test(self._url, key)
            if identity is not None:
                await self.async_set_unique_id(f"{identity.gateway_id}:{identity.profile}")
                self._abort_if_unique_id_configured(updates={CONF_URL: self._url, CONF_KEY: key})
                return self.async_create_entry(title=self._title(identity), data={CONF_URL: self._url, CONF_KEY: key})
        return self.async_show_form(
            step_id="zeroconf_confirm",
            data_schema=vol.Schema({vol.Optional(CONF_KEY): KEY_SELECTOR}),
            description_placeholders={"url": self._url},
            errors=errors,
        )

    async def async_step_reauth(self, entry_data: Mapping[str, Any]) -> ConfigFlowResult:
        """Daygate refused the key (revoked, or changed in daygate.yaml)."""
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """A new key for the same gateway and profile."""
        entry = self._get_reauth_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            key = user_input.get(CONF_KEY) or None
            identity, errors = await self._test(entry.data[CONF_URL], key)
            if identity is not None:
                await self.async_set_unique_id(f"{identity.gateway_id}:{identity.profile}")
                self._abort_if_unique_id_mismatch(reason="wrong_profile")
                return self.async_update_reload_and_abort(entry, data_updates={CONF_KEY: key})
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=vol.Schema({vol.Optional(CONF_KEY): KEY_SELECTOR}),
            description_placeholders={"url": entry.data[CONF_URL]},
            errors=errors,
        )

    async def async_step_reconfigure(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Another address or key for the same gateway and profile."""
        entry = self._get_reconfigure_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            url, key, identity, errors = await self._test_form(user_input)
            if identity is not None:
                await self.async_set_unique_id(f"{identity.gateway_id}:{identity.profile}")
                self._abort_if_unique_id_mismatch(reason="wrong_profile")
                return self.async_update_reload_and_abort(entry, data_updates={CONF_URL: url, CONF_KEY: key})
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=self.add_suggested_values_to_schema(
                _schema(entry.data[CONF_URL]), user_input or {CONF_URL: entry.data[CONF_URL]}
            ),
            errors=errors,
        )
