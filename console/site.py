"""The console's admin site: membership decides who signs in (console.access), the index is the
dashboard (console.dashboard), and the models are listed in the groups of the work (console.groups)."""

from django.contrib import admin
from django.utils.text import slugify

from console.access import is_console_admin, may_use_console
from console.groups import GROUPS, POSITION, SYSTEM, group_of


class ConsoleSite(admin.AdminSite):
    site_header = "Compliance console"
    site_title = "Compliance console"
    index_title = "Investigations and administration"
    index_template = "console/index.html"

    def has_permission(self, request):
        """An active member of an organization or the platform operator; `is_staff` is not asked."""
        return may_use_console(request.user)

    def get_app_list(self, request, app_label=None):
        if app_label is not None:  # /admin/<app>/: Django's own page of one app's models
            return super().get_app_list(request, app_label)
        return grouped(self._build_app_dict(request), show_system=is_console_admin(request.user))

    def index(self, request, extra_context=None):
        from console.views import dashboard_context

        return super().index(request, {**dashboard_context(request), **(extra_context or {})})


def grouped(app_dict: dict, *, show_system: bool) -> list[dict]:
    """Django's apps regrouped into the console's groups (in GROUPS' order, models in theirs)."""
    groups = {name: [] for name in GROUPS}
    for app in app_dict.values():
        for model in app["models"]:
            label = model["model"]._meta.label_lower
            groups[group_of(label)].append(model)
    return [{"name": name, "app_label": slugify(name), "app_url": "", "has_module_perms": True,
             "models": sorted(models, key=lambda model: (POSITION.get(model["model"]._meta.label_lower, 99), model["name"]))}
            for name, models in groups.items() if models and (name != SYSTEM or show_system)]
