"""What other apps do when an organization is created: a registry of callbacks.

Organizations know nothing of monitoring lists (or of anything built on top of them); those apps
register here, typically in their AppConfig.ready():

    from organizations.hooks import on_organization_created

    on_organization_created(seed_monitoring_lists)      # callback(organization) -> None

`organization_create` calls every callback inside its own transaction, after the organization and
its first admin exist, each in a savepoint: a failing callback is logged and rolled back alone, so a
broken subscriber never stops a sign-up (its work can be redone later, e.g. `seed_lists`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from django.db import transaction

if TYPE_CHECKING:
    from organizations.models import Organization

logger = logging.getLogger(__name__)

OrganizationCallback = Callable[["Organization"], None]
_created: list[OrganizationCallback] = []


def on_organization_created(callback: OrganizationCallback) -> OrganizationCallback:
    """Register `callback` (idempotent); usable as a decorator."""
    if callback not in _created:
        _created.append(callback)
    return callback


def remove_organization_created(callback: OrganizationCallback) -> None:
    """Unregister `callback` (tests; one that is not registered is ignored)."""
    if callback in _created:
        _created.remove(callback)


def notify_organization_created(organization: Organization) -> list[tuple[OrganizationCallback, Exception]]:
    """Call every registered callback; return the (callback, error) of those that raised."""
    failures = []
    for callback in list(_created):
        try:
            with transaction.atomic():
                callback(organization)
        except Exception as error:  # one broken subscriber must not undo the organization
            logger.exception("organization-created callback %r failed for %s", callback, organization.pk)
            failures.append((callback, error))
    return failures
