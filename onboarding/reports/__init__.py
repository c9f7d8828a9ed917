"""Downloadable documents: the compliance report (CSV) and the compliance certificate (PDF)."""
