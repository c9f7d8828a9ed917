import pytest

from filings.renderers import (
    UnsupportedReport,
    large_transaction_renderer,
    large_transaction_report_kind,
    renderer_for,
    suspicious_activity_renderer,
    suspicious_activity_report_kind,
)


@pytest.mark.parametrize(("jurisdiction", "suspicious", "large"), [
    ("US", "SAR", "CTR"), ("CA", "STR", "LCTR"), ("AU", "SMR", "TTR"), ("GB", "STR", None), ("JP", "STR", None), ("DE", "STR", None),
    ("FR", "STR", None), ("NL", "STR", None), ("BR", "STR", None), ("us", "SAR", "CTR"),
])
def test_kinds_by_jurisdiction(jurisdiction, suspicious, large):
    assert suspicious_activity_report_kind(jurisdiction) == suspicious
    assert large_transaction_report_kind(jurisdiction) == large
    assert suspicious_activity_renderer(jurisdiction).kind == suspicious
    renderer = large_transaction_renderer(jurisdiction)
    assert (renderer.kind if renderer else None) == large


@pytest.mark.parametrize("jurisdiction", ["GB", "JP", "DE", "FR", "NL"])
def test_no_large_transaction_report(jurisdiction):
    assert large_transaction_report_kind(jurisdiction) is None
    with pytest.raises(UnsupportedReport):
        renderer_for("CTR", jurisdiction)


def test_generic_renderer_names_its_jurisdiction():
    assert renderer_for("STR", "JP").jurisdiction == "JP" and renderer_for("STR", "GB").jurisdiction == "GB"
    assert renderer_for("SAR", "US") is renderer_for("sar", "us")


@pytest.mark.parametrize(("kind", "jurisdiction"), [("SAR", "CA"), ("SMR", "US"), ("TTR", "CA"), ("XYZ", "US"), ("SAR", "ZZ"), ("STR", "")])
def test_unsupported(kind, jurisdiction):
    with pytest.raises(UnsupportedReport):
        renderer_for(kind, jurisdiction)
