"""Scoring a replay against labels: which flagged entities were right.

An entity is positive or negative by its label (monitoring.labels.selectors.entity_labels: an
uploaded label, else its alerts' dispositions). Only the labelled entities that have an event in
the replayed range count: an account with no activity there can be neither caught nor missed.
"""

from collections import Counter
from dataclasses import dataclass

from monitoring.labels.selectors import Label


def ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def f1(precision: float | None, recall: float | None) -> float | None:
    if not precision or not recall:
        return 0.0 if precision is not None and recall is not None else None
    return round(2 * precision * recall / (precision + recall), 4)


@dataclass(frozen=True)
class Population:
    """The entities of the replayed range and the labels among them."""

    entities: frozenset[str]
    labels: dict[str, Label]

    @classmethod
    def of(cls, entities: set[str], labels: dict[str, Label]) -> "Population":
        return cls(frozenset(entities), {entity: label for entity, label in labels.items() if entity in entities})

    @property
    def positives(self) -> set[str]:
        return {entity for entity, label in self.labels.items() if label.positive}

    def summary(self) -> dict:
        typologies = Counter(label.typology for label in self.labels.values() if label.positive and label.typology)
        return {"entities": len(self.entities), "positives": len(self.positives), "negatives": len(self.labels) - len(self.positives),
                "typologies": dict(sorted(typologies.items()))}

    def score(self, flagged: set[str], alerts: int) -> dict:
        """alerts, flagged entities, the confusion counts, precision, recall, F1, alerts per 1,000 entities, per typology."""
        positives = self.positives
        true_positives = flagged & positives
        false_positives = {entity for entity in flagged if entity in self.labels and entity not in positives}
        precision = ratio(len(true_positives), len(true_positives) + len(false_positives))
        recall = ratio(len(true_positives), len(positives))
        return {
            "alerts": alerts, "flagged_entities": len(flagged), "true_positives": len(true_positives),
            "false_positives": len(false_positives), "unlabelled_flagged": len(flagged - self.labels.keys()),
            "precision": precision, "recall": recall, "f1": f1(precision, recall),
            "alerts_per_1000_entities": round(1000 * alerts / len(self.entities), 2) if self.entities else None,
            "per_typology": self._per_typology(true_positives, len(false_positives)),
        }

    def _per_typology(self, true_positives: set[str], false_positives: int) -> dict:
        """Per typology: its positives, those flagged, recall; precision counts the flagged of this
        typology against the flagged negatives (a negative has no typology)."""
        found: dict[str, dict] = {}
        for entity, label in self.labels.items():
            if label.positive and label.typology:
                row = found.setdefault(label.typology, {"positives": 0, "true_positives": 0})
                row["positives"] += 1
                row["true_positives"] += entity in true_positives
        for row in found.values():
            row["recall"] = ratio(row["true_positives"], row["positives"])
            row["precision"] = ratio(row["true_positives"], row["true_positives"] + false_positives)
            row["f1"] = f1(row["precision"], row["recall"])
        return dict(sorted(found.items()))
