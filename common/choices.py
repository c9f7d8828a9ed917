from django.db import models


class Mode(models.TextChoices):
    """Test and live data are separate (docs/architecture.md §3): records carry the mode of the key that made them."""

    TEST = "test", "Test"
    LIVE = "live", "Live"
