"""The mark a seeded demo portfolio leaves (README "Demo data"): one row per organization and mode."""

from django.db import models

from common.models import TenantModel


class DemoPortfolio(TenantModel):
    """The demo portfolio was seeded into this organization's mode: a later `make run` does not seed
    it again, also once it has been removed (`removed_at`). `created` keeps the ids of what removal
    cannot find through the portfolio's entities: the address tags, webhook endpoints and 314(a) files."""

    seed = models.PositiveBigIntegerField()
    digest = models.CharField(max_length=64, help_text="The generated portfolio's SHA-256 (the same for the same seed).")
    anchor = models.DateTimeField(help_text="The moment the portfolio's times count back from (its seeding).")
    summary = models.JSONField(default=dict, blank=True)
    created = models.JSONField(default=dict, blank=True)
    removed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "mode"], name="demo_portfolio_one_per_mode")]

    def __str__(self):
        return f"demo portfolio ({self.mode})"
