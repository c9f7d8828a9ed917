from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps  # a module: its AdminConfig, a default config, is not this module's


class ConsoleConfig(AppConfig):
    """The investigator console's workbench: who may sign in (access), the model groups, the
    dashboard and its charts (docs/console.md)."""

    default = True
    name = "console"
    default_auto_field = "django.db.models.BigAutoField"


class ConsoleAdminConfig(admin_apps.AdminConfig):
    """Django's admin with the console's site as `admin.site` (INSTALLED_APPS names this instead of
    django.contrib.admin), so every ModelAdmin registers on it and its access rule is the one rule."""

    default = False
    default_site = "console.site.ConsoleSite"
