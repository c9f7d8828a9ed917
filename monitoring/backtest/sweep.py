"""A parameter sweep: a small grid of candidate values, every combination backtested on one
prepared history, and the best combination under a constraint (docs/backtests.md)."""

from itertools import product

from common.errors import ValidationFailed

MAX_COMBINATIONS = 50
METRICS = ("recall", "precision", "f1")
BOUNDS = {"min_precision": ("precision", 1), "min_recall": ("recall", 1), "min_f1": ("f1", 1),
          "max_alerts_per_1000_entities": ("alerts_per_1000_entities", -1)}


def combinations(grid: dict) -> list[dict]:
    """Every combination of the grid's values, in the grid's order (the last parameter varies fastest)."""
    if not isinstance(grid, dict) or not grid:
        raise ValidationFailed.for_field("grid", "grid must be an object of parameter names to lists of candidate values.")
    for name, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ValidationFailed.for_field(f"grid.{name}", f"{name} needs a non-empty list of candidate values.")
    count = 1
    for values in grid.values():
        count *= len(values)
    if count > MAX_COMBINATIONS:
        raise ValidationFailed.for_field("grid", f"The grid makes {count} combinations; a sweep takes at most {MAX_COMBINATIONS}.")
    names = list(grid)
    return [dict(zip(names, values, strict=True)) for values in product(*grid.values())]


def check_objective(objective: dict) -> dict:
    """{"maximise": metric, bound: value, ...}; defaults to maximising F1 with no bound."""
    objective = dict(objective or {})
    metric = objective.pop("maximise", "f1")
    if metric not in METRICS:
        raise ValidationFailed.for_field("objective.maximise", f"maximise one of {', '.join(METRICS)}.")
    for name, value in objective.items():
        if name not in BOUNDS:
            raise ValidationFailed.for_field(f"objective.{name}", f"Unknown bound {name}: use {', '.join(BOUNDS)}.")
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ValidationFailed.for_field(f"objective.{name}", f"{name} must be a non-negative number.")
    return {"maximise": metric, **objective}


def satisfies(metrics: dict, objective: dict) -> bool:
    for name, (metric, sign) in BOUNDS.items():
        if name in objective:
            value = metrics[metric]
            if value is None or sign * value < sign * objective[name]:
                return False
    return True


def best(rows: list[dict], objective: dict) -> dict | None:
    """The combination with the highest objective among those within the bounds; ties go to fewer
    alerts, then to the earlier combination. None when no combination satisfies the bounds."""
    metric = objective["maximise"]
    eligible = [(index, row) for index, row in enumerate(rows) if satisfies(row["metrics"], objective)
                and row["metrics"][metric] is not None]
    if not eligible:
        return None
    index, row = max(eligible, key=lambda item: (item[1]["metrics"][metric], -item[1]["metrics"]["alerts"], -item[0]))
    return {"index": index, **row}
