from django.apps import AppConfig


class FilingsConfig(AppConfig):
    name = "filings"
    verbose_name = "Cases and filings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from filings import integrations

        integrations.register()
