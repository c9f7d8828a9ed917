"""Inbound provider callbacks (spec "Inbound provider callbacks"): verified, stored raw, ingested by a worker."""
