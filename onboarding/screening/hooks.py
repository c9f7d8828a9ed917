"""What happens after a sanctions list changed: a registry of callbacks.

The sanctions module does not know about entities or wallets; the entity work does. So instead of
importing it, the loader announces a change and whoever cares registers for it, typically in an
AppConfig.ready():

    from onboarding.screening.hooks import on_lists_changed

    @on_lists_changed
    def rescreen(changes: list[ListChange]) -> None:
        enqueue_on_commit(rescreen_for_changes, {c.source: c.version for c in changes})  # enqueue, don't screen here

Callbacks run after the lists' transactions have committed, once per load run that changed at least
one list, with one `ListChange` per changed list (an unchanged list is not in it). A failing
callback does not stop the others; `notify_lists_changed` returns the failures for the caller
(the `load_sanctions` command reports them and exits non-zero).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ListChange:
    source: str
    content_hash: str
    added_uids: list[str] = field(default_factory=list)
    changed_uids: list[str] = field(default_factory=list)
    removed_uids: list[str] = field(default_factory=list)
    # The SanctionsListVersion.number the load wrote (None: not known to the caller; the re-screening
    # finds it by content hash).
    version: int | None = None


ListsChangedCallback = Callable[[list[ListChange]], None]
_callbacks: list[ListsChangedCallback] = []


def on_lists_changed(callback: ListsChangedCallback) -> ListsChangedCallback:
    """Register `callback` (idempotent); usable as a decorator."""
    if callback not in _callbacks:
        _callbacks.append(callback)
    return callback


def remove_lists_changed(callback: ListsChangedCallback) -> None:
    """Unregister `callback` (tests; a callback that is not registered is ignored)."""
    if callback in _callbacks:
        _callbacks.remove(callback)


def notify_lists_changed(changes: list[ListChange]) -> list[tuple[ListsChangedCallback, Exception]]:
    """Call every registered callback with `changes`; return the (callback, error) of those that raised."""
    failures: list[tuple[ListsChangedCallback, Exception]] = []
    if not changes:
        return failures
    for callback in list(_callbacks):
        try:
            callback(changes)
        except Exception as error:  # one broken subscriber must not keep the others from re-screening
            logger.exception("sanctions lists-changed callback %r failed", callback)
            failures.append((callback, error))
    return failures
