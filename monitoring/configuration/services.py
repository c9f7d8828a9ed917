"""Writes to an organization's rule settings and lists. Every change is audited; the API, the admin
and the commands all come through here."""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, models, transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import Conflict, NotFound, ValidationFailed
from common.permissions import require_role
from common.principal import Principal
from monitoring.choices import Severity
from monitoring.configuration import cleaning, defaults
from monitoring.configuration.selectors import rule_or_404
from monitoring.models import AddressTag, AssetPrice, BlockedAddress, CodeListEntry, RuleSetting
from monitoring.rules import Rule
from organizations.choices import Role

SETTINGS_ROLE = Role.ADMIN  # rule settings change what the whole organization is alerted on
LISTS_ROLE = Role.ADMIN


def _actor(principal: Principal | None):
    """Commands act as the system (no person, no key)."""
    return principal if principal is not None and (principal.user or principal.api_key) else None


# --- Rule settings -----------------------------------------------------------------------------

def _setting_state(setting: RuleSetting) -> dict:
    return {"rule_code": setting.rule_code, "enabled": setting.enabled, "parameters": setting.parameters,
            "severity": setting.severity, "shadow": setting.shadow}


def merged_overrides(rule: Rule, stored: Mapping, patch: Mapping) -> dict:
    """The overrides after the patch, validated as one set (cross-parameter checks see the result).
    A null resets a parameter to its default; a null for a name the rule never had is still an error."""
    if not isinstance(patch, Mapping):
        raise ValidationFailed.for_field("parameters", "parameters must be an object of parameter names to values.")
    known = {param.name for param in rule.params} | set(stored)
    merged = {name: value for name, value in {**stored, **patch}.items() if value is not None or name not in known}
    clean, errors = rule.validate_overrides(merged)
    if errors:
        raise ValidationFailed(details=[
            {"field": "parameters" if name == "non_field_errors" else f"parameters.{name}",
             "message": message if name == "non_field_errors" else f"{name} {message}"}
            for name in sorted(errors) for message in errors[name]
        ])
    return rule.params_json(clean)


def _severity(value: str) -> str:
    """"" resets to the rule's default severity."""
    if value != "" and value not in Severity.values:
        raise ValidationFailed.for_field("severity", f"severity must be one of {', '.join(Severity.values)} (or null for the default).")
    return value


@transaction.atomic
def rule_setting_update(*, principal: Principal, rule_id, enabled: bool | None = None, parameters: Mapping | None = None,
                        severity: str | None = None, shadow: bool | None = None) -> RuleSetting:
    """Enable or disable a rule, override its parameters (merged with the stored overrides) or its
    severity, put it in or out of shadow mode (evaluated and recorded, no alert). None leaves a
    field as it is; severity "" and a parameter's null restore the default."""
    require_role(principal, SETTINGS_ROLE)
    rule = rule_or_404(rule_id)
    organization = principal.organization
    setting = RuleSetting.objects.select_for_update().filter(organization=organization, rule_code=rule.code).first()
    setting = setting or RuleSetting(organization=organization, rule_code=rule.code)
    before = _setting_state(setting)
    if enabled is not None:
        setting.enabled = bool(enabled)
    if severity is not None:
        setting.severity = _severity(severity)
    if shadow is not None:
        setting.shadow = bool(shadow)
    if parameters is not None:
        setting.parameters = merged_overrides(rule, setting.parameters, parameters)
    if _setting_state(setting) == before:
        return setting  # nothing changed: no write, no audit row
    setting.updated_by = principal.user
    try:
        with transaction.atomic():
            setting.save()
    except IntegrityError:  # the first setting of this rule, written by someone else at the same moment
        raise Conflict("This rule's settings were changed at the same moment; read them again and retry.") from None
    audit_record(actor=principal, action="rule_setting.updated", object_type="rule_setting", object_id=rule.code,
                 organization=organization, before=before, after=_setting_state(setting))
    return setting


# --- Lists: asset prices, address tags, block list, code lists ----------------------------------

@dataclass(frozen=True)
class ListKind:
    name: str  # audit action prefix
    model: type[models.Model]
    key: tuple[str, ...]  # unique per organization
    values: tuple[str, ...]  # the other editable fields
    clean: Callable[..., dict]


LIST_KINDS = {kind.model: kind for kind in (
    ListKind("asset_price", AssetPrice, ("asset",), ("usd_rate", "decimals"), cleaning.clean_asset_price),
    ListKind("address_tag", AddressTag, ("chain_id", "address", "category"), ("source",), cleaning.clean_address_tag),
    ListKind("blocked_address", BlockedAddress, ("chain_id", "address"), ("reason",), cleaning.clean_blocked_address),
    ListKind("code_list_entry", CodeListEntry, ("list_name", "code"), ("note",), cleaning.clean_code_list_entry),
)}  # fmt: skip


def list_kind(model_or_name) -> ListKind:
    for model, kind in LIST_KINDS.items():
        if model_or_name in (model, kind.name):
            return kind
    raise ValueError(f"not a monitoring list: {model_or_name!r}")


def _state(kind: ListKind, entry) -> dict:
    return {name: getattr(entry, name) for name in (*kind.key, *kind.values)}


def _audit_entry(principal, kind: ListKind, verb: str, entry_id, before=None, after=None) -> None:
    audit_record(actor=_actor(principal), action=f"{kind.name}.{verb}", object_type=kind.name, object_id=entry_id,
                 organization=principal.organization, before=before, after=after)


def _entry_of(kind: ListKind, organization, entry_id):
    entry = kind.model.objects.select_for_update().filter(organization=organization, pk=entry_id).first()
    if entry is None:
        raise NotFound(f"No {kind.name.replace('_', ' ')} of your organization has this id.")
    return entry


def _create(kind: ListKind, organization, clean: dict):
    try:
        with transaction.atomic():
            return kind.model.objects.create(organization=organization, **clean)
    except IntegrityError:
        raise Conflict(f"This {kind.name.replace('_', ' ')} was added at the same moment; retry.") from None


@transaction.atomic
def list_entry_add(*, principal: Principal, kind: str, fields: Mapping[str, Any]):
    """Add an entry; one with the same key is updated instead (adding is idempotent)."""
    require_role(principal, LISTS_ROLE)
    kind = list_kind(kind)
    clean = kind.clean(**fields)
    organization = principal.organization
    entry = kind.model.objects.select_for_update().filter(organization=organization, **{k: clean[k] for k in kind.key}).first()
    if entry is None:
        entry = _create(kind, organization, clean)
        _audit_entry(principal, kind, "added", entry.pk, after=clean)
        return entry
    return _apply(principal, kind, entry, clean)


def _apply(principal, kind: ListKind, entry, clean: dict):
    before = _state(kind, entry)
    if before == clean:
        return entry
    for name, value in clean.items():
        setattr(entry, name, value)
    entry.save()
    _audit_entry(principal, kind, "updated", entry.pk, before=before, after=clean)
    return entry


@transaction.atomic
def list_entry_update(*, principal: Principal, kind: str, entry_id, fields: Mapping[str, Any]):
    require_role(principal, LISTS_ROLE)
    kind = list_kind(kind)
    entry = _entry_of(kind, principal.organization, entry_id)
    clean = kind.clean(**fields)
    clash = kind.model.objects.filter(organization=principal.organization, **{k: clean[k] for k in kind.key}).exclude(pk=entry.pk)
    if clash.exists():
        raise Conflict(f"Another {kind.name.replace('_', ' ')} of your organization already has these values.")
    return _apply(principal, kind, entry, clean)


@transaction.atomic
def list_entry_remove(*, principal: Principal, kind: str, entry_id) -> None:
    require_role(principal, LISTS_ROLE)
    kind = list_kind(kind)
    entry = _entry_of(kind, principal.organization, entry_id)
    entry_id, before = entry.pk, _state(kind, entry)
    entry.delete()
    _audit_entry(principal, kind, "removed", entry_id, before=before)


# --- Seeding -----------------------------------------------------------------------------------

def _seed(model, organization, rows: dict[str, dict], key: str, add_missing: bool, **scope) -> list[str]:
    """Create the default rows a list lacks: all of them when the list is empty, the absent ones
    with `add_missing`; an existing row is never changed (the organization may have edited it)."""
    existing = set(model.objects.filter(organization=organization, **scope).values_list(key, flat=True))
    if existing and not add_missing:
        return []
    missing = sorted(set(rows) - existing)
    model.objects.bulk_create([model(organization=organization, **scope, **{key: name}, **rows[name]) for name in missing])
    return missing


@transaction.atomic
def lists_seed(*, organization, actor=None, add_missing: bool = False) -> dict[str, list[str]]:
    """Write the default lists (docs/rules.md) for `organization` (data-safe: see `_seed`). Returns what was added."""
    added = {"asset_prices": _seed(AssetPrice, organization, {asset: {"usd_rate": rate} for asset, rate in defaults.ASSET_PRICES.items()},
                                   "asset", add_missing)}
    for list_name, codes in defaults.CODE_LISTS.items():
        rows = {code: {"note": defaults.NOTES.get(code, "")} for code in codes}
        added[str(list_name)] = _seed(CodeListEntry, organization, rows, "code", add_missing, list_name=list_name)
    if any(added.values()):
        audit_record(actor=actor, action="monitoring_lists.seeded", object_type="organization", object_id=organization.pk,
                     organization=organization, after=added)
    return added


def seed_new_organization(organization) -> None:
    """organizations.hooks callback: every new organization starts with the default lists."""
    lists_seed(organization=organization)


# --- Address tags from a file ------------------------------------------------------------------

@dataclass
class TagLoad:
    rows: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    duplicates: int = 0
    removed: int = 0
    invalid: list[tuple[int, str]] = field(default_factory=list)
    replace_skipped: bool = False


def _tag_key(values: Mapping) -> tuple:
    return values["chain_id"], values["address"], values["category"]


class _TagLoader:
    """One load: rows are cleaned, de-duplicated within the file, and written in chunks (one query
    for the chunk's existing tags, one bulk insert, one bulk update)."""

    def __init__(self, organization, default_source: str, chunk_size: int):
        self.organization, self.default_source, self.chunk_size = organization, default_source, chunk_size
        self.report, self.seen, self.sources = TagLoad(), set(), set()

    def clean(self, line: int, row: Mapping[str, Any]) -> dict | None:
        self.report.rows += 1
        if None in row:  # csv.DictReader's key for cells beyond the header
            self.report.invalid.append((line, "the row has more cells than the header has columns"))
            return None
        try:
            values = cleaning.clean_address_tag(chain_id=row.get("chain_id"), address=row.get("address"),
                                                category=row.get("category"), source=row.get("source") or self.default_source)
        except ValidationFailed as exc:
            self.report.invalid.append((line, "; ".join(f"{detail['field']}: {detail['message']}" for detail in exc.details)))
            return None
        if _tag_key(values) in self.seen:
            self.report.duplicates += 1
            return None
        self.seen.add(_tag_key(values))
        self.sources.add(values["source"])
        return values

    def write(self, chunk: list[dict]) -> None:
        stored = {(tag.chain_id, tag.address, tag.category): tag for tag in AddressTag.objects.filter(
            organization=self.organization, address__in={values["address"] for values in chunk})}
        new, changed, now = [], [], timezone.now()
        for values in chunk:
            tag = stored.get(_tag_key(values))
            if tag is None:
                new.append(AddressTag(organization=self.organization, **values))
            elif tag.source != values["source"]:
                tag.source, tag.updated_at = values["source"], now
                changed.append(tag)
        AddressTag.objects.bulk_create(new)
        AddressTag.objects.bulk_update(changed, ["source", "updated_at"])
        self.report.created += len(new)
        self.report.updated += len(changed)
        self.report.unchanged += len(chunk) - len(new) - len(changed)

    def remove_unlisted(self) -> None:
        """--replace: the file is the whole truth for the sources it names."""
        if self.report.invalid:
            self.report.replace_skipped = True  # an unreadable row may be a tag that must stay
            return
        stale = [pk for pk, *key in AddressTag.objects.filter(organization=self.organization, source__in=self.sources)
                 .values_list("pk", "chain_id", "address", "category") if tuple(key) not in self.seen]
        for start in range(0, len(stale), self.chunk_size):
            AddressTag.objects.filter(pk__in=stale[start:start + self.chunk_size]).delete()
        self.report.removed = len(stale)


@transaction.atomic
def address_tags_load(*, organization, rows: Iterable[tuple[int, Mapping[str, Any]]], default_source: str = "",
                      replace: bool = False, actor=None, progress: Callable[[TagLoad], None] | None = None,
                      chunk_size: int = 500) -> TagLoad:
    """Load (line number, {chain_id, address, category[, source]}) rows. Invalid rows are reported and
    skipped; loading the same file again changes nothing. All or nothing: one transaction."""
    loader = _TagLoader(organization, default_source, chunk_size)
    chunk: list[dict] = []
    for line, row in rows:
        values = loader.clean(line, row)
        if values is not None:
            chunk.append(values)
        if len(chunk) >= chunk_size:
            loader.write(chunk)
            chunk = []
            if progress:
                progress(loader.report)
    if chunk:
        loader.write(chunk)
    if replace:
        loader.remove_unlisted()
    if progress:
        progress(loader.report)
    report = loader.report
    audit_record(actor=actor, action="address_tags.loaded", object_type="organization", object_id=organization.pk,
                 organization=organization, after={
                     "sources": sorted(loader.sources), "rows": report.rows, "created": report.created, "updated": report.updated,
                     "unchanged": report.unchanged, "duplicates": report.duplicates, "invalid": len(report.invalid),
                     "removed": report.removed, "replace": replace})  # fmt: skip
    return report
