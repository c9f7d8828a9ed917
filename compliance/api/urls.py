from django.urls import path
from rest_framework.routers import SimpleRouter

from compliance.api.transfer_views import TransferInitiateView, TransferStatusView
from compliance.api.vasp_views import VaspViewSet
from compliance.api.views import BatchStatusView, EntityStatusView, WalletStatusView

vasps = SimpleRouter(trailing_slash=False)
vasps.register("vasps", VaspViewSet, basename="compliance-vasp")

urlpatterns = [
    path("status/<uuid:entity_id>", EntityStatusView.as_view(), name="compliance-status-entity"),
    path("status/wallet/<int:chain_id>/<str:address>", WalletStatusView.as_view(), name="compliance-status-wallet"),
    path("batch/status", BatchStatusView.as_view(), name="compliance-status-batch"),
    path("transfer/initiate", TransferInitiateView.as_view(), name="compliance-transfer-initiate"),
    path("transfer/<uuid:transfer_id>", TransferStatusView.as_view(), name="compliance-transfer"),
    *vasps.urls,
]
