"""Which lists an organization screens against: an admin turns a list on or off for the organization
(ScreeningListSetting); a list without a setting follows its default (registry.default_enabled).
Read by onboarding.selectors.screening_sources at every screening run (kept per process for a few
seconds: this process drops its copy here, the others' expire). A change re-screens the organization's
customers it can affect (onboarding.rescreen_organization_list)."""

from __future__ import annotations

from django.db import transaction

from common.audit import audit_record
from common.errors import Forbidden, ValidationFailed
from common.outbox import enqueue_on_commit
from common.permissions import require_role
from common.principal import Principal
from onboarding import selectors
from onboarding.models import ScreeningListSetting
from onboarding.models.sanctions import ListCategory
from organizations.choices import Role
from organizations.models import Organization

LISTS_ROLE = Role.ADMIN  # what every customer is screened against: an organization-wide setting


def _state(view: selectors.ScreeningListView) -> dict:
    return {"source": view.source, "enabled": view.enabled, "chosen": view.chosen, "default": view.default}


@transaction.atomic
def screening_list_set(*, actor: Principal, organization: Organization, source: str, enabled: bool) -> ScreeningListSetting:
    """Turn the list `source` on or off for `organization`, and re-screen its customers the change can
    affect once committed (onboarding.rescreen_organization_list: turned on, every entity not rejected
    in both modes; turned off, those with an active hit on the list). Nothing is re-screened when the
    list's state does not change (already on or off, by choice or by default) or it is not loaded (no
    screening reads it).

    Admin role of that organization. `source` is a list the registry knows or one that is loaded
    (an OpenSanctions dataset, os_<dataset>, once loaded). Turning off the last loaded sanctions
    list the organization screens against is refused: its entities would no longer be screened
    (their checks would all be errors). Audited with the state before and after."""
    require_role(actor, LISTS_ROLE)
    if actor.organization is None or actor.organization.pk != organization.pk:
        raise Forbidden("You can choose the screening lists of your own organization only.")
    if not isinstance(enabled, bool):
        raise ValidationFailed.for_field("enabled", "true or false.")
    # One change at a time per organization: two admins each turning off one of the last two lists
    # must not leave it with none.
    Organization.objects.select_for_update().filter(pk=organization.pk).first()
    views = {view.source: view for view in selectors.screening_list_views(organization)}
    view = views.get(source)
    if view is None:
        raise ValidationFailed.for_field("source", f"No list {source!r}: the lists are {', '.join(sorted(views))}.")
    if not enabled and view.screened and view.category == ListCategory.SANCTIONS:
        others = [other for other in views.values() if other.screened and other.category == ListCategory.SANCTIONS
                  and other.source != source]
        if not others:
            raise ValidationFailed.for_field(
                "enabled", f"{view.name} is the last sanctions list {organization.name} screens against: turn another on first.")
    setting, _ = ScreeningListSetting.objects.update_or_create(
        organization=organization, source=source, defaults={"enabled": enabled, "updated_by": actor.actor_label[:200]})
    # This process's copy of the organization's lists, now and once committed (a screening in between
    # would have read the rows of before); other processes' copies expire within SOURCES_CACHE_SECONDS.
    selectors.screening_sources_forget(organization)
    transaction.on_commit(lambda: selectors.screening_sources_forget(organization))
    if view.loaded and view.enabled != enabled:
        from onboarding import tasks  # the tasks call the services: imported late to break the cycle

        enqueue_on_commit(tasks.rescreen_organization_list, str(organization.pk), source, enabled)
    after = {**_state(view), "enabled": enabled, "chosen": enabled}
    audit_record(actor=actor, action="screening_list.updated", object_type="screening_list_setting", object_id=setting.pk,
                 organization=organization, before=_state(view), after=after)
    return setting
