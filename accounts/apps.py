from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Users and sessions"  # allauth's "account" app is also titled "Accounts" on the console's index
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounts import emails  # noqa: F401 - registers the e-mail renderers
