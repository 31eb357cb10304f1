"""To-do lists: one per Tickedify list of the key's profile (inbox, actions, follow-up). Ticking
an item off completes the task in Tickedify; unticking one completed today puts it back in the
inbox; adding (to the inbox list, as Tickedify adds) creates a task. Each write goes through
daygate with an idempotency key. Renaming, deleting, moving and due dates are not offered:
daygate has no route for them.
"""

from __future__ import annotations

from homeassistant.components.todo import TodoItem, TodoListEntity
from homeassistant.components.todo.const import TodoItemStatus, TodoListEntityFeature
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.util import dt as dt_util

from . import DaygateConfigEntry
from .const import DOMAIN, TASK_LISTS
from .coordinator import DaygateCoordinator, Subject
from .entity import DaygateEntity

PARALLEL_UPDATES = 1


async def async_setup_entry(
    hass: HomeAssistant, entry: DaygateConfigEntry, async_add_entities: AddConfigEntryEntitiesCallback
) -> None:
    """A to-do list per Tickedify list of the key's profile."""
    coordinator = entry.runtime_data.coordinator
    async_add_entities(DaygateTodoList(coordinator, coordinator.identity.own, name) for name in TASK_LISTS)


class DaygateTodoList(DaygateEntity, TodoListEntity):
    """One Tickedify list."""

    def __init__(self, coordinator: DaygateCoordinator, subject: Subject, list_name: str) -> None:
        super().__init__(coordinator, subject, f"tasks_{list_name}")
        self.list_name = list_name
        self._attr_translation_key = f"tasks_{list_name}"
        if coordinator.identity.may_write:
            features = TodoListEntityFeature.UPDATE_TODO_ITEM
            if list_name == "inbox":
                features |= TodoListEntityFeature.CREATE_TODO_ITEM
            self._attr_supported_features = features

    @property
    def todo_items(self) -> list[TodoItem] | None:
        data = self.coordinator.data
        items = [
            TodoItem(
                summary=str(task.get("title") or ""),
                uid=str(task["id"]),
                status=TodoItemStatus.NEEDS_ACTION,
                due=dt_util.parse_date(str(task.get("appears_on") or "")),
            )
            for task in data.tasks.get(self.list_name, [])
        ]
        if self.list_name == "inbox":
            # Today's completed tasks: unticking one puts it back in the inbox.
            items += [
                TodoItem(summary=str(task.get("title") or ""), uid=str(task["id"]), status=TodoItemStatus.COMPLETED)
                for task in data.done
            ]
        return items

    def _item(self, uid: str) -> TodoItem | None:
        return next((item for item in self.todo_items or [] if item.uid == uid), None)

    async def async_create_todo_item(self, item: TodoItem) -> None:
        if not item.summary or not item.summary.strip():
            raise ServiceValidationError(translation_domain=DOMAIN, translation_key="empty_task")
        await self.coordinator.write(self.coordinator.client.add_task(item.summary.strip()))

    async def async_update_todo_item(self, item: TodoItem) -> None:
        if item.uid is None or (current := self._item(item.uid)) is None:
            raise ServiceValidationError(translation_domain=DOMAIN, translation_key="unknown_task")
        if item.summary is not None and item.summary != current.summary:
            raise ServiceValidationError(translation_domain=DOMAIN, translation_key="no_rename")
        if item.status == current.status:
            return
        if item.status == TodoItemStatus.COMPLETED:
            await self.coordinator.write(self.coordinator.client.complete_task(item.uid))
        else:
            await self.coordinator.write(self.coordinator.client.reopen_task(item.uid))
