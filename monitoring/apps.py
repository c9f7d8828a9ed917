from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    name = "monitoring"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from monitoring.configuration.services import seed_new_organization
        from organizations.hooks import on_organization_created

        on_organization_created(seed_new_organization)  # every new organization starts with the default lists (docs/rules.md)

        from monitoring import integration

        integration.register()  # statistics, risk factors, activity, report rows and search for onboarding
