from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "compliance"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from compliance import callbacks

        callbacks.register()  # chain confirmations of on-chain status updates
