"""Calendars: the key's own (8alls and its subscribed calendars; 8alls events can be created,
changed and deleted with a key that may write), and with a household key one per other member
and one for the whole household (read only).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from homeassistant.components.calendar import CalendarEntity, CalendarEvent
from homeassistant.components.calendar.const import CalendarEntityFeature
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.util import dt as dt_util

from . import DaygateConfigEntry
from .api import DaygateError
from .const import DOMAIN
from .coordinator import DaygateCoordinator, Subject
from .entity import DaygateEntity

PARALLEL_UPDATES = 1
# A household or member calendar is read a day at a time: at most this many days per view.
HOUSEHOLD_DAYS = 62


async def async_setup_entry(
    hass: HomeAssistant, entry: DaygateConfigEntry, async_add_entities: AddConfigEntryEntitiesCallback
) -> None:
    """The own calendar; with a household key the other members' and the household's."""
    coordinator = entry.runtime_data.coordinator
    identity = coordinator.identity
    entities: list[CalendarEntity] = [DaygateOwnCalendar(coordinator, identity.own)]
    if identity.household:
        entities += [
            DaygateHouseholdCalendar(coordinator, subject)
            for subject in identity.subjects
            if subject.profile != identity.profile
        ]
        entities.append(DaygateHouseholdCalendar(coordinator, None))
    async_add_entities(entities)


def to_calendar_event(event: dict[str, Any]) -> CalendarEvent | None:
    """A daygate event as Home Assistant's; None when it has no usable times."""
    start = dt_util.parse_datetime(str(event.get("start") or ""))
    end = dt_util.parse_datetime(str(event.get("end") or event.get("start") or ""))
    if start is None or end is None:
        return None
    if event.get("all_day"):
        first, last = start.date(), end.date()
        return CalendarEvent(
            start=first,
            end=last if last > first else first + timedelta(days=1),
            summary=str(event.get("title") or ""),
            description=event.get("description"),
            location=event.get("location"),
            uid=str(event.get("id")),
        )
    return CalendarEvent(
        start=start,
        end=end if end > start else start + timedelta(minutes=1),
        summary=str(event.get("title") or ""),
        description=event.get("description"),
        location=event.get("location"),
        uid=str(event.get("id")),
    )


def _current_or_next(events: list[dict[str, Any]]) -> CalendarEvent | None:
    now = dt_util.now()
    found: list[CalendarEvent] = []
    for raw in events:
        if raw.get("status") == "cancelled":
            continue
        event = to_calendar_event(raw)
        if event is not None and event.end_datetime_local > now:
            found.append(event)
    return min(found, key=lambda e: e.start_datetime_local, default=None)


def _in_range(events: list[dict[str, Any]], start: datetime, end: datetime) -> list[CalendarEvent]:
    found = []
    for raw in events:
        event = to_calendar_event(raw)
        if event is not None and event.start_datetime_local < end and event.end_datetime_local > start:
            found.append(event)
    return found


class DaygateOwnCalendar(DaygateEntity, CalendarEntity):
    """The key's profile's events: 8alls and its subscribed calendars."""

    _attr_translation_key = "events"

    def __init__(self, coordinator: DaygateCoordinator, subject: Subject) -> None:
        super().__init__(coordinator, subject, "calendar")
        if coordinator.identity.may_write:
            self._attr_supported_features = (
                CalendarEntityFeature.CREATE_EVENT
                | CalendarEntityFeature.UPDATE_EVENT
                | CalendarEntityFeature.DELETE_EVENT
            )

    @property
    def event(self) -> CalendarEvent | None:
        return _current_or_next(self.coordinator.data.events) if self.coordinator.data else None

    async def async_get_events(
        self, hass: HomeAssistant, start_date: datetime, end_date: datetime
    ) -> list[CalendarEvent]:
        zone = dt_util.get_time_zone(self.coordinator.identity.timezone) or dt_util.DEFAULT_TIME_ZONE
        first = start_date.astimezone(zone).date()
        last = end_date.astimezone(zone).date()
        try:
            events = await self.coordinator.client.events(first, min(last, first + timedelta(days=365)))
        except DaygateError as err:
            raise HomeAssistantError(
                translation_domain=DOMAIN, translation_key="read_failed", translation_placeholders={"error": str(err)}
            ) from err
        return _in_range(events, start_date, end_date)

    def _fields(self, values: dict[str, Any]) -> dict[str, Any]:
        """Home Assistant's event fields as daygate's."""
        if values.get("rrule"):
            raise ServiceValidationError(translation_domain=DOMAIN, translation_key="no_recurrence")
        fields: dict[str, Any] = {}
        if "summary" in values:
            fields["title"] = values["summary"]
        for source, target in (("description", "description"), ("location", "location")):
            if values.get(source) is not None:
                fields[target] = values[source]
        start, end = values.get("dtstart"), values.get("dtend")
        if start is not None and end is not None:
            zone = dt_util.get_time_zone(self.coordinator.identity.timezone) or dt_util.DEFAULT_TIME_ZONE
            if isinstance(start, datetime):
                fields["all_day"] = False
                fields["start"] = (start if start.tzinfo else start.replace(tzinfo=zone)).isoformat()
                fields["end"] = (end if end.tzinfo else end.replace(tzinfo=zone)).isoformat()
            elif isinstance(start, date):
                fields["all_day"] = True
                fields["start"] = datetime.combine(start, time(), zone).isoformat()
                fields["end"] = datetime.combine(end, time(), zone).isoformat()
        return fields

    async def async_create_event(self, **kwargs: Any) -> None:
        await self.coordinator.write(self.coordinator.client.create_event(self._fields(kwargs)))

    async def async_update_event(
        self, uid: str, event: dict[str, Any], recurrence_id: str | None = None, recurrence_range: str | None = None
    ) -> None:
        await self.coordinator.write(self.coordinator.client.update_event(uid, self._fields(event)))

    async def async_delete_event(
        self, uid: str, recurrence_id: str | None = None, recurrence_range: str | None = None
    ) -> None:
        await self.coordinator.write(self.coordinator.client.delete_event(uid))


class DaygateHouseholdCalendar(DaygateEntity, CalendarEntity):
    """A household member's events as the household sees them, or (no subject) everyone's."""

    def __init__(self, coordinator: DaygateCoordinator, subject: Subject | None) -> None:
        super().__init__(coordinator, subject, "calendar" if subject else "household_calendar")
        self._attr_translation_key = "events" if subject else "household_events"

    def _theirs(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if self.subject is None:
            return events
        member = self.subject.id
        return [e for e in events if e.get("member") == member or member in (e.get("members") or [])]

    @property
    def event(self) -> CalendarEvent | None:
        return _current_or_next(self._theirs(self.coordinator.data.household_events)) if self.coordinator.data else None

    async def async_get_events(
        self, hass: HomeAssistant, start_date: datetime, end_date: datetime
    ) -> list[CalendarEvent]:
        zone = dt_util.get_time_zone(self.coordinator.identity.timezone) or dt_util.DEFAULT_TIME_ZONE
        day = start_date.astimezone(zone).date()
        last = min(end_date.astimezone(zone).date(), day + timedelta(days=HOUSEHOLD_DAYS))
        events: dict[str, dict[str, Any]] = {}
        try:
            while day <= last:
                for event in await self.coordinator.client.household_events(day):
                    events.setdefault(str(event.get("id")), event)
                day += timedelta(days=1)
        except DaygateError as err:
            raise HomeAssistantError(
                translation_domain=DOMAIN, translation_key="read_failed", translation_placeholders={"error": str(err)}
            ) from err
        return _in_range(self._theirs(list(events.values())), start_date, end_date)
