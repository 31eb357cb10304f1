"""What the integration knows of daygate, kept current by daygate's change stream.

`DaygateCoordinator` holds the summaries (one per household member, or the key's profile's), the
coming week's events and the Tickedify lists. It follows `/v1/stream` (or `/v1/household/stream`
for a household key): a `change` refreshes after a short quiet time, so a burst of changes is one
refresh. A refresh every 15 minutes is only a safety net. The stream reconnects with back-off;
while it is away and a refresh fails, entities are unavailable, said once in the log and once
when they are back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
import contextlib
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryAuthFailed, HomeAssistantError, ServiceValidationError
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.debounce import Debouncer
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator, UpdateFailed
from homeassistant.util import dt as dt_util

from .api import DaygateApiError, DaygateAuthError, DaygateClient, DaygateError, DaygateForbiddenError
from .const import (
    CHANGE_QUIET,
    DOMAIN,
    EVENTS_AHEAD_DAYS,
    LOGGER,
    SAFETY_REFRESH,
    SCOPE_HOUSEHOLD,
    SCOPE_WRITE,
    STREAM_BACKOFF,
    STREAM_SILENCE,
    TASK_LISTS,
)

# Section error codes that mean a person must log in again (`daygate connect <backend>`).
NEEDS_A_PERSON = frozenset({"reauth_required", "reauth_blocked"})


@dataclass(frozen=True, slots=True)
class Subject:
    """Whose values an entity shows: a household member, or the key's own profile."""

    id: str
    name: str
    profile: str
    color: str | None = None


@dataclass(slots=True)
class DaygateIdentity:
    """Who the key is (`/v1/me`)."""

    gateway_id: str
    version: str
    timezone: str
    profile: str
    scopes: frozenset[str]
    household_name: str | None
    subjects: tuple[Subject, ...]

    @property
    def household(self) -> bool:
        return SCOPE_HOUSEHOLD in self.scopes and self.household_name is not None

    @property
    def may_write(self) -> bool:
        return SCOPE_WRITE in self.scopes

    @property
    def own(self) -> Subject:
        """The subject of the key's own profile."""
        for subject in self.subjects:
            if subject.profile == self.profile:
                return subject
        return self.subjects[0]

    @classmethod
    def from_answer(cls, me: dict[str, Any]) -> DaygateIdentity:
        gateway = me.get("gateway") or {}
        household = me.get("household") or None
        scopes = frozenset(str(scope) for scope in me.get("scopes") or [])
        profile = str(me.get("profile") or "default")
        subjects: list[Subject] = []
        if household and SCOPE_HOUSEHOLD in scopes:
            for member in household.get("members") or []:
                subjects.append(
                    Subject(
                        id=str(member["id"]),
                        name=str(member.get("name") or member["id"]),
                        profile=str(member.get("profile") or member["id"]),
                        color=member.get("color"),
                    )
                )
        if not any(subject.profile == profile for subject in subjects):
            subjects.append(Subject(id=profile, name=profile, profile=profile))
        return cls(
            gateway_id=str(gateway.get("id") or ""),
            version=str(gateway.get("version") or ""),
            timezone=str(gateway.get("timezone") or ""),
            profile=profile,
            scopes=scopes,
            household_name=str(household.get("name") or "daygate") if household else None,
            subjects=tuple(subjects),
        )


@dataclass(slots=True)
class DaygateData:
    """One refresh's worth of daygate's answers."""

    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    household_events: list[dict[str, Any]] = field(default_factory=list)
    tasks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    done: list[dict[str, Any]] = field(default_factory=list)


class DaygateCoordinator(DataUpdateCoordinator[DaygateData]):
    """daygate's values for one config entry, refreshed when its stream says they changed."""

    config_entry: ConfigEntry

    def __init__(
        self, hass: HomeAssistant, entry: ConfigEntry, client: DaygateClient, identity: DaygateIdentity
    ) -> None:
        super().__init__(
            hass,
            LOGGER,
            config_entry=entry,
            name=DOMAIN,
            update_interval=SAFETY_REFRESH,
            request_refresh_debouncer=Debouncer(hass, LOGGER, cooldown=CHANGE_QUIET, immediate=False),
        )
        self.client = client
        self.identity = identity
        self.stream_connected = False
        self._stream_task: asyncio.Task[None] | None = None
        self._repairs: set[str] = set()

    async def _async_update_data(self) -> DaygateData:
        identity = self.identity
        data = DaygateData()
        today = self.today()
        try:
            if identity.household:
                household = await self.client.household_summary()
                for member_id, summary in (household.get("members") or {}).items():
                    data.summaries[str(member_id)] = summary
                known = {subject.id for subject in identity.subjects}
                if set(data.summaries) - known or (known - {identity.own.id}) - set(data.summaries):
                    # A member joined or left the household (daygate's config was reloaded): the
                    # entry loads again, adding their device and entities or removing theirs.
                    LOGGER.info("The household's members changed; reloading %s", self.config_entry.title)
                    self.hass.config_entries.async_schedule_reload(self.config_entry.entry_id)
            if identity.own.id not in data.summaries:
                data.summaries[identity.own.id] = await self.client.summary()
            data.events = await self.client.events(today, today + timedelta(days=EVENTS_AHEAD_DAYS))
            if identity.household:
                data.household_events = await self.client.household_events(today)
            lists = await asyncio.gather(*(self.client.tasks(name) for name in TASK_LISTS))
            data.tasks = dict(zip(TASK_LISTS, lists, strict=True))
            data.done = await self.client.tasks_done(today)
        except DaygateAuthError as err:
            raise ConfigEntryAuthFailed(
                translation_domain=DOMAIN,
                translation_key="key_refused",
                translation_placeholders={"error": err.message},
            ) from err
        except DaygateError as err:
            raise UpdateFailed(
                translation_domain=DOMAIN, translation_key="update_failed", translation_placeholders={"error": str(err)}
            ) from err
        self._update_repairs(data)
        return data

    def _update_repairs(self, data: DaygateData) -> None:
        """A backend login that daygate cannot renew on its own (the person must run `daygate
        connect`) is a repair issue; it goes when the section is well again.
        """
        ended: dict[str, tuple[str, str, str]] = {}
        names = {subject.id: subject.name for subject in self.identity.subjects}
        for subject_id, summary in data.summaries.items():
            for report in (summary.get("sections") or {}).values():
                error = (report or {}).get("error") or {}
                backend = str((report or {}).get("backend") or "")
                if backend and error.get("code") in NEEDS_A_PERSON:
                    ended[f"{self.config_entry.entry_id}_{subject_id}_{backend}"] = (
                        backend,
                        names.get(subject_id, subject_id),
                        str(error.get("message") or error.get("code")),
                    )
        for issue_id, (backend, subject, message) in ended.items():
            ir.async_create_issue(
                self.hass,
                DOMAIN,
                issue_id,
                is_fixable=False,
                severity=ir.IssueSeverity.ERROR,
                translation_key="backend_login",
                translation_placeholders={"backend": backend, "subject": subject, "error": message},
            )
        for issue_id in self._repairs - set(ended):
            ir.async_delete_issue(self.hass, DOMAIN, issue_id)
        self._repairs = set(ended)

    async def write[T](self, call: Awaitable[T]) -> T:
        """A write through daygate, its refusal in Home Assistant's terms, then a refresh at once
        (not after the stream's quiet time: whoever wrote wants to see it).
        """
        try:
            answer = await call
        except DaygateForbiddenError as err:
            raise ServiceValidationError(
                translation_domain=DOMAIN,
                translation_key="key_may_not_write",
                translation_placeholders={"error": err.message},
            ) from err
        except DaygateApiError as err:
            raise HomeAssistantError(
                translation_domain=DOMAIN,
                translation_key="write_refused",
                translation_placeholders={"error": err.message},
            ) from err
        except DaygateError as err:
            raise HomeAssistantError(
                translation_domain=DOMAIN, translation_key="write_failed", translation_placeholders={"error": str(err)}
            ) from err
        await self.async_refresh()
        return answer

    def today(self) -> date:
        """Today in the household's timezone (daygate's, not Home Assistant's)."""
        zone = dt_util.get_time_zone(self.identity.timezone) or dt_util.DEFAULT_TIME_ZONE
        return dt_util.now(zone).date()

    # MARK: - The change stream

    def start_stream(self) -> None:
        """Follows daygate's change stream until the entry is unloaded."""
        self._stream_task = self.config_entry.async_create_background_task(
            self.hass, self._follow_stream(), f"{DOMAIN} change stream {self.config_entry.title}"
        )

    async def _follow_stream(self) -> None:
        path = "/v1/household/stream" if self.identity.household else "/v1/stream"
        delay = STREAM_BACKOFF[0]
        while True:
            try:
                async with contextlib.aclosing(self.client.stream(path)) as events:
                    while True:
                        event = await asyncio.wait_for(anext(events), STREAM_SILENCE)
                        if event.name == "hello":
                            LOGGER.debug("Following daygate's change stream at %s%s", self.client.url, path)
                            self.stream_connected = True
                            delay = STREAM_BACKOFF[0]
                            # Whatever changed while the stream was away.
                            await self.async_request_refresh()
                        elif event.name == "change":
                            await self.async_request_refresh()
            except StopAsyncIteration:
                LOGGER.debug("daygate ended its change stream; reconnecting")
            except TimeoutError:
                LOGGER.debug("daygate's change stream went silent; reconnecting")
            except DaygateAuthError:
                self.stream_connected = False
                # The refresh that follows raises ConfigEntryAuthFailed and starts reauthentication.
                await self.async_request_refresh()
            except DaygateError as err:
                LOGGER.debug("daygate's change stream is away: %s", err)
            self.stream_connected = False
            await asyncio.sleep(delay)
            delay = min(delay * 2, STREAM_BACKOFF[1])
