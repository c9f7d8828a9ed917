"""The back office: endpoints (through the same services as the API), deliveries as a work queue
(failed first, with a retry action), events, and the inbound callback log (read-only)."""

from functools import partial

from django import forms
from django.contrib import admin
from django.db.models import Q
from django.template.response import TemplateResponse

from common.admin_support import (
    OrganizationFilter,
    PlatformAdmin,
    ReadOnlyAdmin,
    ServiceSaveAdmin,
    TenantAdmin,
    admin_principal,
    of_members,
    run_service,
    sar_confined,
)
from common.confidentiality import SAR_EVENT_TYPES, sar_visible, visible_event_types
from webhooks import catalogue, selectors, services
from webhooks.inbound import services as inbound
from webhooks.models import Delivery, DeliveryAttempt, Event, InboundCallback, WebhookEndpoint


class EndpointForm(forms.ModelForm):
    event_types = forms.MultipleChoiceField(choices=[(name, name) for name in catalogue.subscribable_types()],
                                            widget=forms.CheckboxSelectMultiple)

    class Meta:
        model = WebhookEndpoint
        fields = ("organization", "mode", "url", "description", "event_types", "enabled")


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(TenantAdmin, ServiceSaveAdmin):
    """Creating an endpoint or rotating its secret shows the secret once, on the page that follows."""

    form = EndpointForm
    list_display = ("url", "organization", "mode", "enabled", "created_at", "secret_rotated_at")
    list_filter = ("mode", "enabled", OrganizationFilter)
    search_fields = ("url", "description")
    list_select_related = ("organization",)
    actions = ["rotate_secret"]

    @staticmethod
    def _confined(request, obj) -> bool:
        """Below l2_investigator in the endpoint's organization a subscription to sar.filed is not shown."""
        return obj is not None and not sar_visible(admin_principal(request, obj.organization, obj.mode))

    def get_readonly_fields(self, request, obj=None):
        fields = () if obj is None else ("organization", "mode", "created_at", "secret_rotated_at")
        return (*fields, "subscribed_event_types") if self._confined(request, obj) else fields

    def get_fields(self, request, obj=None):
        types = "subscribed_event_types" if self._confined(request, obj) else "event_types"
        fields = ("organization", "mode", "url", "description", types, "enabled")
        return fields if obj is None else (*fields, "created_at", "secret_rotated_at")

    @admin.display(description="event types")
    def subscribed_event_types(self, obj):
        return ", ".join(visible_event_types(obj.event_types, None))

    def save_model(self, request, obj, form, change):
        principal = admin_principal(request, obj.organization, obj.mode)
        values = {field: form.cleaned_data[field] for field in ("url", "description", "event_types", "enabled")
                  if field in form.cleaned_data}  # a confined reader's form has no event_types
        if change:
            self.save_through(request, partial(services.endpoint_update, principal=principal, endpoint_id=obj.pk, changes=values))
            return
        created = {}

        def create():
            created["endpoint"] = services.endpoint_create(principal=principal, **values)

        if self.save_through(request, create):
            obj.pk = created["endpoint"].pk
            obj._state.adding = False
            request._webhook_secret = created["endpoint"].signing_secret

    def response_add(self, request, obj, post_url_continue=None):
        secret = getattr(request, "_webhook_secret", None)
        if secret is None:
            return super().response_add(request, obj, post_url_continue)
        return self._secret_page(request, obj, secret, "Webhook endpoint created")

    def delete_model(self, request, obj, *, subject: str = "") -> bool:
        principal = admin_principal(request, obj.organization, obj.mode)
        return self.delete_through(request, obj, partial(services.endpoint_delete, principal=principal, endpoint_id=obj.pk),
                                   subject=subject)

    def has_delete_permission(self, request, obj=None):
        return obj is not None  # one at a time, through the service: no bulk delete

    @admin.action(description="Rotate the signing secret (one endpoint)")
    def rotate_secret(self, request, queryset):
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one endpoint: its new secret is shown once.", level="error")
            return None
        endpoint = queryset.get()
        principal = admin_principal(request, endpoint.organization, endpoint.mode)
        rotated = {}

        def rotate():
            rotated["endpoint"] = services.endpoint_rotate_secret(principal=principal, endpoint_id=endpoint.pk)

        if run_service(request, rotate):
            return self._secret_page(request, rotated["endpoint"], rotated["endpoint"].signing_secret, "Signing secret rotated")
        return None

    def _secret_page(self, request, endpoint, secret, title):
        return TemplateResponse(request, "admin/webhooks/secret.html", {
            **self.admin_site.each_context(request), "endpoint": endpoint, "secret": secret,
            "opts": self.model._meta, "title": title,
        })


class AttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    fields = ("number", "at", "finished_at", "status_code", "duration_ms", "error")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    list_display = ("event", "endpoint", "organization", "mode", "status", "attempts", "last_status", "next_attempt_at",
                    "delivered_at", "created_at")
    list_filter = ("status", "mode", OrganizationFilter)
    search_fields = ("event__public_id", "endpoint__url")
    list_select_related = ("event", "endpoint", "organization")
    readonly_fields = ("event", "endpoint", "organization", "mode", "status", "attempts", "next_attempt_at", "last_status",
                       "last_error", "delivered_at", "created_at")
    inlines = [AttemptInline]
    actions = ["retry"]

    def get_queryset(self, request):
        deliveries = of_members(selectors.failed_first(Delivery.objects.all()), request)  # annotated before the list orders by the rank
        return sar_confined(deliveries, request, Q(event__type__in=SAR_EVENT_TYPES))

    def get_ordering(self, request):
        return ("status_rank", "-created_at", "id")

    @admin.action(description="Retry the selected failed deliveries")
    def retry(self, request, queryset):
        for delivery in queryset.select_related("organization"):
            principal = admin_principal(request, delivery.organization, delivery.mode)
            run_service(request, partial(services.delivery_retry, principal=principal, endpoint_id=delivery.endpoint_id,
                                         delivery_id=delivery.pk), f"Retrying the delivery of {delivery.event_id}.")


class DeliveryInline(admin.TabularInline):
    model = Delivery
    fields = ("endpoint", "status", "attempts", "last_status", "delivered_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Event)
class EventAdmin(TenantAdmin, ReadOnlyAdmin):
    list_display = ("public_id", "type", "organization", "mode", "created_at")
    list_filter = ("type", "mode", OrganizationFilter)
    search_fields = ("public_id",)
    list_select_related = ("organization",)
    readonly_fields = ("public_id", "type", "organization", "mode", "data", "created_at")
    inlines = [DeliveryInline]

    def get_queryset(self, request):
        return sar_confined(super().get_queryset(request), request, Q(type__in=SAR_EVENT_TYPES))


@admin.register(InboundCallback)
class InboundCallbackAdmin(PlatformAdmin, ReadOnlyAdmin):
    """Provider callbacks name no organization until processed: the platform operator's."""

    list_display = ("created_at", "provider", "external_id", "status", "attempts", "processed_at", "next_attempt_at")
    list_filter = ("provider", "status")
    search_fields = ("external_id",)
    readonly_fields = ("provider", "external_id", "signed_at", "headers", "body", "status", "result", "claimed_at",
                       "processed_at", "attempts", "next_attempt_at", "created_at")
    exclude = ("signature",)
    actions = ["reprocess"]

    @admin.action(description="Reprocess the selected unhandled or failed callbacks")
    def reprocess(self, request, queryset):
        for callback in queryset:
            run_service(request, partial(inbound.callback_reprocess, actor=request.user, callback_id=callback.pk),
                        f"Reprocessing {callback}.")
