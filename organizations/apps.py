from django.apps import AppConfig


class OrganizationsConfig(AppConfig):
    name = "organizations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from organizations import emails  # noqa: F401 - registers the invitation e-mail
