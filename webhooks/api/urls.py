from django.urls import path

from webhooks.api.inbound_views import InboundCallbackView
from webhooks.inbound.providers import PROVIDERS

inbound_urlpatterns = [path(name, InboundCallbackView.for_provider(name)) for name in PROVIDERS]
