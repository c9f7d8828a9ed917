"""Inbound provider callbacks (docs/webhooks.md): verified, stored raw, ingested by a worker."""
