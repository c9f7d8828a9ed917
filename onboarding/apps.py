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
    """Sanctions lists changed (load_sanctions, a refresh): once the loads committed, re-screen the
    entities their diffs can affect (onboarding.rescreen_for_changes), not every entity."""
    from common.outbox import enqueue_on_commit
    from onboarding.screening.rescreen import change_versions
    from onboarding.tasks import rescreen_for_changes

    enqueue_on_commit(rescreen_for_changes, change_versions(changes))
