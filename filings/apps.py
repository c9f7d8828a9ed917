from django.apps import AppConfig


class FilingsConfig(AppConfig):
    name = "filings"
    default_auto_field = "django.db.models.BigAutoField"
