"""The console's sanctions lists (imported by onboarding.admin): each list with its version in force and
its last refresh, the versions with their diffs, and the refresh log. Everything is read-only but the
"Refresh now" action, which calls the refresh service and is the platform operator's alone (the
lists are every organization's)."""

from django.contrib import admin, messages
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator

from common.admin_support import ReadOnlyAdmin
from common.outbox import enqueue_on_commit
from onboarding.models import SanctionsList, SanctionsListVersion, SanctionsRefresh
from onboarding.sanctions.refresh import url_variable
from onboarding.sanctions.registry import UnknownList, list_name, list_spec, list_urls

RECENT_VERSIONS = 20
RECENT_REFRESHES = 10
DIFF_ROWS = 1000  # entries shown per part of a version's diff (a first load adds every entry)


def _spec(source: str):
    try:
        return list_spec(source)
    except UnknownList:
        return None


def _version_link(version_id, number) -> str:
    if version_id is None:
        return "—"
    return format_html('<a href="{}">version {}</a>', reverse("admin:onboarding_sanctionslistversion_change", args=[version_id]),
                       number)


def _short(text: str, length: int = 120) -> str:
    return Truncator(text).chars(length) if text else "—"


@admin.register(SanctionsList)
class SanctionsListAdmin(ReadOnlyAdmin):
    list_display = ("source", "list_name", "category", "published", "entry_count", "current_version", "last_refresh",
                    "last_refresh_problem", "failures")
    list_filter = ("category", "last_refresh_outcome")
    actions = ["refresh_now"]
    fieldsets = (
        (None, {"fields": ("source", "list_name", "publisher", "category", "version", "published_at", "loaded_at", "checked_at",
                           "content_hash", "current_version")}),
        ("Refresh from the publisher", {"fields": ("download_urls", "last_refresh_at", "last_refresh_outcome", "last_refresh_error",
                                                   "refresh_failures", "refresh_log")}),
        ("Versions", {"fields": ("versions_table",)}),
        ("Content", {"fields": ("entry_count", "name_count", "address_count", "digital_address_count", "skipped_count",
                                "skipped_samples", "source_files")}),
    )

    def get_readonly_fields(self, request, obj=None):
        return [field for _title, options in self.fieldsets for field in options["fields"]]

    def get_queryset(self, request):
        latest = SanctionsListVersion.objects.filter(sanctions_list=OuterRef("pk")).order_by("-number")
        return super().get_queryset(request).annotate(current_version_id=Subquery(latest.values("pk")[:1]),
                                                      current_version_number=Subquery(latest.values("number")[:1]))

    @admin.display(description="List")
    def list_name(self, sanctions_list):
        return list_name(sanctions_list.source)

    @admin.display(description="Publisher")
    def publisher(self, sanctions_list):
        spec = _spec(sanctions_list.source)
        return spec.publisher if spec else "—"

    @admin.display(description="Version in force", ordering="current_version_number")
    def current_version(self, sanctions_list):
        return _version_link(sanctions_list.current_version_id, sanctions_list.current_version_number)

    @admin.display(description="Published", ordering="published_at")
    def published(self, sanctions_list):
        return f"{sanctions_list.published_at:%Y-%m-%d}" if sanctions_list.published_at else "—"

    @admin.display(description="Last refresh", ordering="last_refresh_at")
    def last_refresh(self, sanctions_list):
        if sanctions_list.last_refresh_at is None:
            return "never"
        return f"{sanctions_list.last_refresh_at:%Y-%m-%d %H:%M} {sanctions_list.last_refresh_outcome}"

    @admin.display(description="Last refresh problem")
    def last_refresh_problem(self, sanctions_list):
        return _short(sanctions_list.last_refresh_error, 100)

    @admin.display(description="Failures", ordering="refresh_failures")
    def failures(self, sanctions_list):
        return sanctions_list.refresh_failures

    @admin.display(description="Downloaded from")
    def download_urls(self, sanctions_list):
        spec = _spec(sanctions_list.source)
        if spec is None:
            return "—"
        urls = list_urls(spec)
        return format_html("<table><tr><th>File</th><th>URL</th><th>Override with</th></tr>{}</table>", format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            ((name, urls.get(name) or "no URL", url_variable(spec.source, name)) for name in spec.files)))

    @admin.display(description="Refresh log")
    def refresh_log(self, sanctions_list):
        refreshes = SanctionsRefresh.objects.filter(source=sanctions_list.source).order_by("-started_at")[:RECENT_REFRESHES]
        rows = format_html_join("", '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>', (
            (reverse("admin:onboarding_sanctionsrefresh_change", args=[refresh.pk]), f"{refresh.started_at:%Y-%m-%d %H:%M:%S}",
             refresh.trigger, refresh.outcome or "running", _short(refresh.message, 200)) for refresh in refreshes))
        everything = f'{reverse("admin:onboarding_sanctionsrefresh_changelist")}?source={sanctions_list.source}'
        return format_html('<table><tr><th>Started</th><th>Trigger</th><th>Outcome</th><th>Message</th></tr>{}</table>'
                           '<p><a href="{}">the whole refresh log of {}</a></p>', rows, everything, sanctions_list.source)

    @admin.display(description="Versions")
    def versions_table(self, sanctions_list):
        versions = sanctions_list.versions.order_by("-number")[:RECENT_VERSIONS]
        rows = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", (
            (_version_link(version.pk, version.number), version.origin, f"{version.loaded_at:%Y-%m-%d %H:%M:%S}",
             f"{version.published_at:%Y-%m-%d}" if version.published_at else "—", version.entry_count, len(version.added),
             len(version.changed), len(version.removed)) for version in versions))
        everything = f'{reverse("admin:onboarding_sanctionslistversion_changelist")}?sanctions_list__source={sanctions_list.source}'
        return format_html("<table><tr><th>Version</th><th>Origin</th><th>Loaded</th><th>Published</th><th>Entries</th>"
                           "<th>Added</th><th>Changed</th><th>Removed</th></tr>{}</table><p><a href=\"{}\">every version</a></p>",
                           rows, everything)

    def has_refresh_permission(self, request):
        return request.user.is_superuser  # the lists are every organization's: the platform operator refreshes them

    @admin.action(description="Refresh now from the publisher", permissions=["refresh"])
    def refresh_now(self, request, queryset):
        """Queued for the worker: a download can take minutes, which a web request must not wait for."""
        from onboarding.tasks import refresh_sanctions_list

        sources = sorted(sanctions_list.source for sanctions_list in queryset)
        for source in sources:
            enqueue_on_commit(refresh_sanctions_list, source, "console", str(request.user.pk))
        self.message_user(request, f"Refreshing {', '.join(sources)} from the publisher in the background: the outcome appears in "
                                   "each list's last refresh and in the refresh log.", messages.INFO)


@admin.register(SanctionsListVersion)
class SanctionsListVersionAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "number", "origin", "loaded_at", "published_at", "entry_count", "added_count", "changed_count",
                    "removed_count", "rescreened_entities")
    list_filter = ("sanctions_list__source", "origin")
    list_select_related = ("sanctions_list",)
    fields = ("sanctions_list", "number", "origin", "loaded_at", "published_at", "publisher_version", "entry_count", "content_hash",
              "source_files", "made_by", "rescreened_entities", "rescreened_at", "added_entries", "changed_entries", "removed_entries")
    readonly_fields = fields

    @admin.display(description="Added")
    def added_count(self, version):
        return len(version.added)

    @admin.display(description="Changed")
    def changed_count(self, version):
        return len(version.changed)

    @admin.display(description="Removed")
    def removed_count(self, version):
        return len(version.removed)

    @admin.display(description="Made by")
    def made_by(self, version):
        refreshes = version.refreshes.order_by("started_at")
        if not refreshes:
            return "load_sanctions" if version.origin != "download" else "—"
        return format_html_join(", ", '<a href="{}">the {} refresh of {}</a>', (
            (reverse("admin:onboarding_sanctionsrefresh_change", args=[refresh.pk]), refresh.trigger,
             f"{refresh.started_at:%Y-%m-%d %H:%M:%S}") for refresh in refreshes))

    @staticmethod
    def _diff(entries: list[dict]):
        if not entries:
            return "—"
        rows = format_html_join("", "<tr><td>{}</td><td>{}</td></tr>", ((entry.get("uid", ""), entry.get("name", ""))
                                                                          for entry in entries[:DIFF_ROWS]))
        more = f"and {len(entries) - DIFF_ROWS} more" if len(entries) > DIFF_ROWS else ""
        return format_html("<table><tr><th>uid</th><th>Name</th></tr>{}</table>{}", rows, more)

    @admin.display(description="Added entries")
    def added_entries(self, version):
        return self._diff(version.added)

    @admin.display(description="Changed entries")
    def changed_entries(self, version):
        return self._diff(version.changed)

    @admin.display(description="Removed entries")
    def removed_entries(self, version):
        return self._diff(version.removed)


@admin.register(SanctionsRefresh)
class SanctionsRefreshAdmin(ReadOnlyAdmin):
    list_display = ("started_at", "source", "trigger", "outcome", "short_message", "version_made", "finished_at")
    list_filter = ("source", "outcome", "trigger")
    search_fields = ("source", "message")
    list_select_related = ("version",)
    fields = ("source", "trigger", "started_at", "finished_at", "outcome", "message", "urls", "version_made")
    readonly_fields = fields

    @admin.display(description="Message")
    def short_message(self, refresh):
        return _short(refresh.message)

    @admin.display(description="Version loaded")
    def version_made(self, refresh):
        return _version_link(refresh.version_id, refresh.version.number) if refresh.version_id else "—"
