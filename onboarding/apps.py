from django.apps import AppConfig


class OnboardingConfig(AppConfig):
    name = "onboarding"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from onboarding.screening import on_lists_changed

        on_lists_changed(rescreen_on_list_change)

        from onboarding import callbacks

        callbacks.register()  # KYB and identity provider callbacks become compliance checks


def rescreen_on_list_change(changes) -> None:
    """A sanctions list changed (load_sanctions): re-screen existing entities once the load committed."""
    from common.outbox import enqueue_on_commit
    from onboarding.tasks import rescreen_all

    enqueue_on_commit(rescreen_all)
