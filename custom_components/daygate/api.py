"""A client of daygate's HTTP API: every call the integration makes, and its event stream.

Errors come back as daygate's own JSON (`{"error": {"code", "message"}}`); they become
`DaygateAuthError` (the key is missing, wrong or revoked), `DaygateForbiddenError` (the key may
not do this), `DaygateConnectionError` (no answer) or `DaygateApiError` (any other refusal).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from datetime import date, datetime
import json
from typing import Any, cast
import uuid

import aiohttp

TIMEOUT = aiohttp.ClientTimeout(total=20)
# daygate's events are one short data line; an event of more lines keeps this many.
MAX_DATA_LINES = 64


class DaygateError(Exception):
    """Any failure talking to daygate."""


class DaygateConnectionError(DaygateError):
    """daygate did not answer (down, unreachable, timed out)."""


class DaygateApiError(DaygateError):
    """daygate answered with an error."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class DaygateAuthError(DaygateApiError):
    """The key is missing, wrong or revoked (401)."""


class DaygateForbiddenError(DaygateApiError):
    """The key may not do this (403: a scope it lacks)."""


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One Server-Sent Event of daygate's change stream."""

    name: str
    data: str


class DaygateClient:
    """daygate at `url`, with a client key (or none, on a gateway without keys)."""

    def __init__(self, session: aiohttp.ClientSession, url: str, key: str | None) -> None:
        self._session = session
        self.url = url.rstrip("/")
        self._key = key or None

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        if extra:
            headers.update(extra)
        return headers

    async def _request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        idempotent: bool = False,
    ) -> Any:
        extra = {"Idempotency-Key": f"ha-{uuid.uuid4()}"} if idempotent else None
        try:
            async with self._session.request(
                method,
                f"{self.url}{path}",
                params=params,
                json=body,
                headers=self._headers(extra),
                timeout=TIMEOUT,
            ) as response:
                text = await response.text()
                if response.status >= 400:
                    raise _error(response.status, text)
                try:
                    return json.loads(text) if text else None
                except ValueError as err:
                    # Something else answers at that address (a proxy's page, another service).
                    raise DaygateApiError(response.status, "not_json", f"not daygate's JSON: {text[:80]!r}") from err
        except (aiohttp.ClientError, TimeoutError) as err:
            raise DaygateConnectionError(f"daygate at {self.url} did not answer: {err!r}") from err

    # MARK: - Reads

    async def me(self) -> dict[str, Any]:
        """Who the key is: its profile, scopes, the household it may read, the gateway's id."""
        return cast(dict[str, Any], await self._request("GET", "/v1/me"))

    async def summary(self) -> dict[str, Any]:
        """The profile's flat values (`/v1/summary`)."""
        return cast(dict[str, Any], await self._request("GET", "/v1/summary"))

    async def household_summary(self) -> dict[str, Any]:
        """Every member's summary (`/v1/household/summary`, the household scope)."""
        return cast(dict[str, Any], await self._request("GET", "/v1/household/summary"))

    async def events(self, start: date, end: date) -> list[dict[str, Any]]:
        """The profile's events of the local days `start` to `end` (both included)."""
        answer = await self._request("GET", "/v1/events", params={"from": start.isoformat(), "to": end.isoformat()})
        return cast(list[dict[str, Any]], answer.get("events") or [])

    async def household_events(self, day: date) -> list[dict[str, Any]]:
        """Every member's events of one local day (`/v1/household/today`)."""
        answer = await self._request("GET", "/v1/household/today", params={"date": day.isoformat()})
        return cast(list[dict[str, Any]], answer.get("events") or [])

    async def tasks(self, list_name: str) -> list[dict[str, Any]]:
        """A Tickedify list (`inbox`, `acties`, `opvolgen`)."""
        answer = await self._request("GET", "/v1/tasks", params={"list": list_name})
        return cast(list[dict[str, Any]], answer.get("tasks") or [])

    async def tasks_done(self, day: date) -> list[dict[str, Any]]:
        """The tasks completed on a local day."""
        answer = await self._request("GET", "/v1/tasks/done", params={"date": day.isoformat()})
        return cast(list[dict[str, Any]], answer.get("tasks") or [])

    # MARK: - Writes (each with an idempotency key: a retry does not write twice)

    async def add_task(self, title: str) -> dict[str, Any]:
        """Adds a task to the Tickedify inbox."""
        answer = await self._request("POST", "/v1/tasks", body={"title": title}, idempotent=True)
        return cast(dict[str, Any], answer.get("task") or {})

    async def complete_task(self, task_id: str) -> dict[str, Any]:
        """Ticks a task off."""
        return cast(
            dict[str, Any], await self._request("POST", f"/v1/tasks/{task_id}/complete", body={}, idempotent=True)
        )

    async def reopen_task(self, task_id: str) -> dict[str, Any]:
        """Puts a completed task back in the inbox."""
        return cast(
            dict[str, Any], await self._request("POST", f"/v1/tasks/{task_id}/reopen", body={}, idempotent=True)
        )

    async def create_event(self, fields: dict[str, Any]) -> dict[str, Any]:
        """Creates an 8alls event."""
        answer = await self._request("POST", "/v1/events", body=fields, idempotent=True)
        return cast(dict[str, Any], answer.get("event") or {})

    async def update_event(self, event_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Changes an 8alls event (the fields given)."""
        answer = await self._request("PUT", f"/v1/events/{event_id}", body=fields)
        return cast(dict[str, Any], answer.get("event") or {})

    async def delete_event(self, event_id: str) -> None:
        """Deletes an 8alls event."""
        await self._request("DELETE", f"/v1/events/{event_id}")

    async def log_meal(
        self, text: str, meal_type: str | None = None, logged_at: datetime | None = None
    ) -> dict[str, Any]:
        """Logs a meal in words with FitIQ."""
        body: dict[str, Any] = {"text": text}
        if meal_type:
            body["meal_type"] = meal_type
        if logged_at:
            body["logged_at"] = logged_at.isoformat()
        return cast(dict[str, Any], await self._request("POST", "/v1/meals", body=body, idempotent=True))

    async def volunteer(self, dienst_id: str, name: str, tenant: str | None = None) -> dict[str, Any]:
        """Puts a volunteer on a Kantine Koning dienst (a manager's enrollment)."""
        params = {"tenant": tenant} if tenant else None
        return cast(
            dict[str, Any],
            await self._request(
                "POST", f"/v1/diensten/{dienst_id}/volunteers", params=params, body={"name": name}, idempotent=True
            ),
        )

    # MARK: - The change stream

    async def stream(self, path: str) -> AsyncGenerator[StreamEvent]:
        """The events of `path` (`/v1/stream` or `/v1/household/stream`) as they come; ends
        when daygate ends it. Raises like any call when it cannot be opened.
        """
        try:
            async with self._session.get(
                f"{self.url}{path}",
                headers=self._headers({"Accept": "text/event-stream"}),
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=10),
            ) as response:
                if response.status >= 400:
                    raise _error(response.status, await response.text())
                name, data = "message", list[str]()
                async for raw in response.content:
                    line = raw.decode("utf-8", "replace").rstrip("\r\n")
                    if not line:
                        if data or name != "message":
                            yield StreamEvent(name, "\n".join(data))
                        name, data = "message", list[str]()
                    elif line.startswith(":"):
                        continue
                    elif line.startswith("event:"):
                        name = line[6:].strip()
                    elif line.startswith("data:") and len(data) < MAX_DATA_LINES:
                        data.append(line[5:].lstrip())
        except (aiohttp.ClientError, TimeoutError, ValueError) as err:
            # ValueError: a line longer than aiohttp reads (64 KiB); the stream is dropped and opened again.
            raise DaygateConnectionError(f"daygate's stream at {self.url} ended: {err!r}") from err


def _error(status: int, text: str) -> DaygateApiError:
    """Daygate's error answer as an exception."""
    code, message = "error", text[:200]
    try:
        error = json.loads(text)["error"]
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        pass
    if status == 401:
        return DaygateAuthError(status, code, message)
    if status == 403:
        return DaygateForbiddenError(status, code, message)
    return DaygateApiError(status, code, message)
