"""Sanctions lists as loaded from their publishers (OFAC SDN, UN consolidated).

The lists are global reference data, not tenant data: every organization screens against the same
rows. They are written only by `onboarding.sanctions.loader` (the `load_sanctions` command) and read
by the screening index (`onboarding.screening.index`), which keeps its own in-memory copy.

Identity across reloads: a reload keeps the row (and so the `id`) of every entry whose
(list, uid) is still published, and rewrites it only when its content changed. Refer to an entry
from elsewhere by `(list.source, uid)` and compare `version_hash` to tell whether it changed since
(for example to re-raise a hit that was marked a false positive).
"""

from django.db import models

from common.models import BaseModel


class SanctionsSource(models.TextChoices):
    """The lists the project knows by name (onboarding.sanctions.registry says how each is read and
    where it is published). `SanctionsList.source` is not limited to these: an OpenSanctions dataset
    is stored as `os_<dataset>`."""

    OFAC_SDN = "ofac_sdn", "OFAC Specially Designated Nationals"
    UN_CONSOLIDATED = "un_consolidated", "UN Security Council consolidated list"
    OFAC_CONSOLIDATED = "ofac_consolidated", "OFAC Consolidated (non-SDN) list"
    US_CSL = "us_csl", "US Consolidated Screening List"
    BIS_DPL = "bis_dpl", "BIS Denied Persons List"
    EU_FSF = "eu_fsf", "EU Financial Sanctions Files"
    UK_SANCTIONS = "uk_sanctions", "UK Sanctions List"


class ListCategory(models.TextChoices):
    """What a match on the list means: a `sanctions` check, or a `pep` check (politically exposed persons)."""

    SANCTIONS = "sanctions", "Sanctions"
    PEP = "pep", "PEP"


class RefreshOutcome(models.TextChoices):
    LOADED = "loaded"  # a new version is in force
    UNCHANGED = "unchanged"  # the publisher's files are the ones in force
    REFUSED = "refused"  # parsed, but failed the sanity checks (shrank, damaged, empty): the previous version stays
    FAILED = "failed"  # could not be downloaded or parsed: the previous version stays


class VersionOrigin(models.TextChoices):
    BUNDLED = "bundled"  # the snapshot carried in the repository (make run, load_sanctions)
    DOWNLOAD = "download"  # refresh_sanctions from the publisher's URL
    FILE = "file"  # load_sanctions --file


class EntryKind(models.TextChoices):
    INDIVIDUAL = "individual"
    ENTITY = "entity"
    VESSEL = "vessel"
    AIRCRAFT = "aircraft"


class NameKind(models.TextChoices):
    PRIMARY = "primary"
    ALIAS = "alias"
    # OFAC "weak" a.k.a.s (quoted in the remarks) and UN aliases of quality "Low": nicknames and
    # fragments the publishers themselves say are too broad to screen on alone.
    WEAK_ALIAS = "weak_alias", "weak alias"
    # The UN list's NAME_ORIGINAL_SCRIPT (Arabic, Cyrillic, ...): matched after transliteration.
    ORIGINAL_SCRIPT = "original_script", "original script"


class SanctionsList(BaseModel):
    """One published list, with what is needed to tell whether a reload changed it."""

    source = models.CharField(max_length=64, unique=True, help_text=(
        "The list's key: ofac_sdn, un_consolidated, …, or os_ and the dataset's name for an OpenSanctions dataset."))
    category = models.CharField(max_length=16, choices=ListCategory.choices, default=ListCategory.SANCTIONS)
    version = models.CharField(max_length=64, blank=True, default="", help_text="Publisher's version or generation stamp, if any.")
    published_at = models.DateTimeField(null=True, blank=True)
    loaded_at = models.DateTimeField(help_text="When the content last changed in this database.")
    checked_at = models.DateTimeField(help_text="When a load last ran, changed or not.")
    content_hash = models.CharField(max_length=64, help_text="SHA-256 of the source files as read.")
    entry_count = models.PositiveIntegerField(default=0)
    name_count = models.PositiveIntegerField(default=0)
    address_count = models.PositiveIntegerField(default=0)
    digital_address_count = models.PositiveIntegerField(default=0)
    skipped_count = models.PositiveIntegerField(default=0, help_text="Malformed rows skipped by the parser.")
    skipped_samples = models.JSONField(default=list, blank=True)
    source_files = models.JSONField(default=list, blank=True)
    rescreen_pending_since = models.DateTimeField(
        null=True, blank=True,
        help_text="Set by a load that changed the list, in its transaction; cleared once every entity was queued for "
                  "re-screening against it (a beat sweep queues them again while it stays set).")
    last_refresh_at = models.DateTimeField(null=True, blank=True)
    last_refresh_outcome = models.CharField(max_length=16, choices=RefreshOutcome.choices, blank=True, default="")
    last_refresh_error = models.TextField(blank=True, default="")
    refresh_failures = models.PositiveIntegerField(default=0, help_text="Failed or refused refreshes since the last good one.")

    class Meta:
        ordering = ["source"]
        verbose_name = "sanctions list"

    def __str__(self):
        return f"{self.source} ({self.entry_count} entries)"  # source has no choices: os_<dataset> is one too


class SanctionsEntry(BaseModel):
    """A designated party: person, organization, vessel or aircraft."""

    sanctions_list = models.ForeignKey(SanctionsList, on_delete=models.CASCADE, related_name="entries")
    uid = models.CharField(max_length=64, help_text="The publisher's id: OFAC ent_num, UN DATAID.")
    reference = models.CharField(max_length=64, blank=True, default="", help_text="UN reference number, e.g. QDi.001.")
    kind = models.CharField(max_length=16, choices=EntryKind.choices)
    primary_name = models.CharField(max_length=512)
    title = models.CharField(max_length=512, blank=True, default="")
    programs = models.JSONField(default=list, blank=True)
    remarks = models.TextField(blank=True, default="")
    birth_dates = models.JSONField(
        default=list, blank=True, help_text='Listed dates of birth: "1966-09-08", "1966-09", "1966" or a range "1960/1962".'
    )
    countries = models.JSONField(default=list, blank=True, help_text="ISO 3166-1 alpha-2 codes: nationality, citizenship, addresses.")
    listed_on = models.DateField(null=True, blank=True)
    version_hash = models.CharField(max_length=64, help_text="SHA-256 of the entry's parsed content; changes when the entry does.")

    class Meta:
        ordering = ["sanctions_list", "uid"]
        constraints = [models.UniqueConstraint(fields=["sanctions_list", "uid"], name="sanctions_entry_unique_uid")]
        verbose_name = "sanctions entry"
        verbose_name_plural = "sanctions entries"

    def __str__(self):
        return f"{self.primary_name} ({self.uid})"


class SanctionsName(BaseModel):
    """A name an entry is listed under; `normalized` is what the matcher compares."""

    entry = models.ForeignKey(SanctionsEntry, on_delete=models.CASCADE, related_name="names")
    name = models.CharField(max_length=512)
    kind = models.CharField(max_length=16, choices=NameKind.choices)
    qualifier = models.CharField(max_length=16, blank=True, default="", help_text="aka / fka / nka, or the UN alias quality.")
    normalized = models.CharField(max_length=512)

    class Meta:
        ordering = ["entry", "kind", "name"]

    def __str__(self):
        return self.name


class SanctionsAddress(BaseModel):
    entry = models.ForeignKey(SanctionsEntry, on_delete=models.CASCADE, related_name="addresses")
    street = models.CharField(max_length=512, blank=True, default="")
    city = models.CharField(max_length=256, blank=True, default="", help_text="City, with state and postal code as listed by OFAC.")
    state_province = models.CharField(max_length=128, blank=True, default="")
    postal_code = models.CharField(max_length=64, blank=True, default="")
    country = models.CharField(max_length=128, blank=True, default="")
    country_code = models.CharField(max_length=2, blank=True, default="")
    note = models.CharField(max_length=512, blank=True, default="")

    class Meta:
        ordering = ["entry", "country", "city"]
        verbose_name_plural = "sanctions addresses"

    def __str__(self):
        return ", ".join(part for part in (self.street, self.city, self.country) if part)


class SanctionsDigitalAddress(BaseModel):
    """A digital-currency address from the OFAC remarks. `address` is the matching form
    (EVM 0x and bech32 addresses lower-cased); `address_as_listed` keeps the publisher's text."""

    entry = models.ForeignKey(SanctionsEntry, on_delete=models.CASCADE, related_name="digital_addresses")
    currency = models.CharField(max_length=16, help_text="The list's currency label: XBT, ETH, USDT, ...")
    address = models.CharField(max_length=128, db_index=True)
    address_as_listed = models.CharField(max_length=128)

    class Meta:
        ordering = ["entry", "currency", "address"]
        verbose_name_plural = "sanctions digital addresses"

    def __str__(self):
        return f"{self.currency} {self.address_as_listed}"


class SanctionsListVersion(BaseModel):
    """One content of a list that was in force: written in the load's transaction, with what changed
    against the version before it (entries added, changed and removed, each as {uid, name})."""

    sanctions_list = models.ForeignKey(SanctionsList, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(help_text="1 for the list's first load, then one more per changed load.")
    origin = models.CharField(max_length=16, choices=VersionOrigin.choices)
    content_hash = models.CharField(max_length=64)
    publisher_version = models.CharField(max_length=64, blank=True, default="")
    published_at = models.DateTimeField(null=True, blank=True)
    loaded_at = models.DateTimeField()
    entry_count = models.PositiveIntegerField(default=0)
    source_files = models.JSONField(default=list, blank=True, help_text="The files or URLs read.")
    added = models.JSONField(default=list, blank=True)
    changed = models.JSONField(default=list, blank=True)
    removed = models.JSONField(default=list, blank=True)
    rescreened_entities = models.PositiveIntegerField(
        "entities re-screened", null=True, blank=True,
        help_text="Entities queued for re-screening because of this change (those its diff can affect).")
    rescreened_at = models.DateTimeField("re-screened at", null=True, blank=True)

    class Meta:
        ordering = ["sanctions_list", "-number"]
        constraints = [models.UniqueConstraint(fields=["sanctions_list", "number"], name="sanctions_list_version_unique_number")]
        verbose_name = "sanctions list version"

    def __str__(self):
        return f"{self.sanctions_list.source} v{self.number}"


class SanctionsRefresh(BaseModel):
    """One attempt to refresh a list from its publisher, whatever came of it (the console's refresh log)."""

    source = models.CharField(max_length=64, db_index=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    trigger = models.CharField(max_length=16, default="command", help_text="beat | command | console")
    outcome = models.CharField(max_length=16, choices=RefreshOutcome.choices, blank=True, default="")
    message = models.TextField(blank=True, default="")
    urls = models.JSONField(default=list, blank=True)
    version = models.ForeignKey(SanctionsListVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="refreshes")

    class Meta:
        ordering = ["-started_at"]
        verbose_name = "sanctions list refresh"
        verbose_name_plural = "sanctions list refreshes"

    def __str__(self):
        return f"{self.source} {self.started_at:%Y-%m-%d %H:%M} {self.outcome or 'running'}"


class ScreeningListSetting(BaseModel):
    """Whether one organization screens against one list. No row: the list's default (the bundled
    lists are on, the others off). Written by an admin in the console, audited."""

    organization = models.ForeignKey("organizations.Organization", on_delete=models.CASCADE, related_name="screening_lists")
    source = models.CharField(max_length=64)
    enabled = models.BooleanField()
    updated_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["organization", "source"]
        constraints = [models.UniqueConstraint(fields=["organization", "source"], name="screening_list_setting_unique")]
        verbose_name = "screening list setting"

    def __str__(self):
        return f"{self.source}: {'on' if self.enabled else 'off'}"
