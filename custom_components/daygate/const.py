"""Constants of the daygate integration."""

from __future__ import annotations

from datetime import timedelta
import logging
from typing import Final

DOMAIN: Final = "daygate"
LOGGER = logging.getLogger(__package__)

CONF_KEY: Final = "key"

# The event stream pushes every change; this refresh is only a safety net.
SAFETY_REFRESH: Final = timedelta(minutes=15)
# A change on the stream is followed by a refresh after this quiet time (several changes, one refresh).
CHANGE_QUIET: Final = 0.3
# Reconnecting to the stream: first after this many seconds, doubling up to the last.
STREAM_BACKOFF: Final = (1.0, 60.0)
# daygate sends a heartbeat every 15 s: a stream silent for this long is dead.
STREAM_SILENCE: Final = 45.0
# How far ahead the calendars' "next event" looks.
EVENTS_AHEAD_DAYS: Final = 7

# Tickedify's lists, as daygate names them, in the order shown.
TASK_LISTS: Final = ("inbox", "acties", "opvolgen")

SCOPE_READ: Final = "read"
SCOPE_WRITE: Final = "write"
SCOPE_HOUSEHOLD: Final = "household"

ZEROCONF_TYPE: Final = "_daygate._tcp.local."
