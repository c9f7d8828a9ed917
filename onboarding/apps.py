from django.apps import AppConfig


class OnboardingConfig(AppConfig):
    name = "onboarding"
    default_auto_field = "django.db.models.BigAutoField"
