"""The monitoring console, one module per aggregate. Keep this file a plain list of imports."""

from monitoring.admin import alerts, configuration, fincen314, indexer, labels  # noqa: F401
