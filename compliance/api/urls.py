from django.urls import path

from compliance.api.transfer_views import TransferInitiateView, TransferStatusView
from compliance.api.views import BatchStatusView, EntityStatusView, WalletStatusView

urlpatterns = [
    path("status/<uuid:entity_id>", EntityStatusView.as_view(), name="compliance-status-entity"),
    path("status/wallet/<int:chain_id>/<str:address>", WalletStatusView.as_view(), name="compliance-status-wallet"),
    path("batch/status", BatchStatusView.as_view(), name="compliance-status-batch"),
    path("transfer/initiate", TransferInitiateView.as_view(), name="compliance-transfer-initiate"),
    path("transfer/<uuid:transfer_id>", TransferStatusView.as_view(), name="compliance-transfer"),
]
