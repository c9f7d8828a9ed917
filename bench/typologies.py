"""A deterministic, labelled synthetic bank: background traffic with planted laundering typologies.

    .venv/bin/python bench/typologies.py [--accounts 20000] [--days 30] [--laundering-share 0.09] [--seed 11] [--csv DIR]

The same arguments give the same bank, transfer for transfer (one `random.Random(seed)`, no clock).
Used by bench/detection.py (recall and precision of the rules against the labels) and by the tests
(small banks). With `--csv DIR` it writes `accounts.csv` (account, address, entity_type, typology,
group) and `transfers.csv` (id, timestamp, from, to, usd) for other tools.

The parameters and what each typology plants are documented in docs/detection.md.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

START = datetime(2026, 1, 1, tzinfo=UTC)
# Shares of the laundering accounts by typology (the groups are drawn until the share is used up).
TYPOLOGY_SHARES = {"fan_in": 0.24, "cycle": 0.18, "scatter_gather": 0.20, "fan_out": 0.14, "structuring": 0.10,
                   "pass_through": 0.14}  # fmt: skip
TYPOLOGIES = tuple(TYPOLOGY_SHARES)


@dataclass(frozen=True, slots=True)
class Account:
    index: int
    address: str
    entity_type: str  # individual | business
    typology: str | None = None  # the label: None for a legitimate account
    group: int | None = None  # the planted pattern it belongs to


@dataclass(frozen=True, slots=True)
class Transfer:
    id: str
    at: datetime
    sender: str  # an address: a customer's (Account.address) or an outside party's
    recipient: str
    usd: Decimal


@dataclass
class Bank:
    """Accounts (customers of the bank, one wallet each on the off-chain ledger), outside parties, and transfers in time order."""

    accounts: list[Account]
    transfers: list[Transfer]
    services: set[str] = field(default_factory=set)  # outside parties the bank knows (employers, merchants, billers)
    parameters: dict = field(default_factory=dict)

    def labels(self) -> dict[str, str]:
        """{account address: typology} for the laundering accounts."""
        return {a.address: a.typology for a in self.accounts if a.typology}


def money(value: float) -> Decimal:
    return Decimal(str(round(max(value, 0.01), 2)))


class Generator:
    def __init__(self, *, accounts: int = 20_000, days: int = 30, laundering_share: float = 0.09, seed: int = 11,
                 business_share: float = 0.08) -> None:
        self.n, self.days, self.share, self.seed, self.business_share = accounts, days, laundering_share, seed, business_share
        self.rng = random.Random(seed)
        self.transfers: list[tuple[datetime, str, str, Decimal]] = []
        self.labels: dict[int, tuple[str, int]] = {}
        self.services: set[str] = set()

    # --- helpers ---

    def at(self, day: float) -> datetime:
        return START + timedelta(seconds=int(day * 86400))

    def day(self, lo: float = 0.0, hi: float | None = None) -> float:
        return self.rng.uniform(lo, self.days if hi is None else hi)

    def heavy(self, median: float, sigma: float = 0.8, tail: float = 0.03) -> Decimal:
        """Lognormal around `median`, with a Pareto tail for a few: amounts are heavy-tailed."""
        value = median * math.exp(self.rng.gauss(0, sigma))
        if self.rng.random() < tail:
            value *= self.rng.paretovariate(1.5)
        return money(value)

    def send(self, day: float, sender: str, recipient: str, usd: Decimal) -> None:
        if 0 <= day < self.days:
            self.transfers.append((self.at(day), sender, recipient, usd))

    def service(self, name: str) -> str:
        self.services.add(name)
        return name

    # --- background ---

    def background(self, accounts: list[Account]) -> None:
        customers = [a.address for a in accounts]
        businesses = [a.address for a in accounts if a.entity_type == "business"]
        employers = max(self.n // 40, 5)
        for account in accounts:
            if account.entity_type == "business":
                self.business(account)
            else:
                self.individual(account, customers, businesses, employers)

    def individual(self, account: Account, customers: list[str], businesses: list[str], employers: int) -> None:
        rng, me = self.rng, account.address
        salary = self.heavy(3200, 0.45, tail=0.01)
        for payday in range(0, self.days, 30 if rng.random() < 0.6 else 14):
            self.send(payday + 0.35 + rng.random() * 0.1, self.service(f"employer{rng.randrange(employers)}"), me, salary)
        rent = money(float(salary) * rng.uniform(0.25, 0.45))
        self.send(self.day(0, 5), me, self.service(f"landlord{rng.randrange(self.n // 20 + 1)}"), rent)
        for _ in range(self._poisson(2.0)):
            merchant = rng.choice(businesses) if businesses and rng.random() < 0.3 else self.service(f"merchant{rng.randrange(400)}")
            self.send(self.day(), me, merchant, self.heavy(60, 0.9))
        for _ in range(self._poisson(0.7)):
            self.send(self.day(), me, rng.choice(customers), self.heavy(80, 1.0))
        if rng.random() < 0.03:  # savings moved between banks: a legitimate in-and-out
            amount, day = self.heavy(4000, 0.6), self.day(0, self.days - 1)
            self.send(day, self.service(f"ownbank-{me}"), me, amount)
            self.send(day + rng.uniform(0.05, 1.5), me, self.service(f"broker-{me}"), money(float(amount) * rng.uniform(0.9, 1.0)))
        if rng.random() < 0.10:  # a payment to a person at another bank (an outside party the bank does not know)
            self.send(self.day(), me, f"person-{rng.randrange(self.n)}", self.heavy(400, 1.0))
        if rng.random() < 0.03:  # a dinner split: a few friends pay one back
            day = self.day(0, self.days - 1)
            for friend in rng.sample(customers, rng.randint(3, 6)):
                self.send(day + rng.uniform(0, 1), friend, me, self.heavy(35, 0.4))

    def business(self, account: Account) -> None:
        rng, me = self.rng, account.address
        for _ in range(self._poisson(4)):  # larger clients paying invoices
            self.send(self.day(), self.service(f"client{rng.randrange(2000)}"), me, self.heavy(2000, 0.8))
        for week in range(0, self.days, 7):  # suppliers, weekly
            self.send(week + rng.uniform(0, 6.9), me, self.service(f"supplier{rng.randrange(300)}"), self.heavy(1800, 0.9))
        if rng.random() < 0.5:
            self.send(self.day(25, 28), me, self.service(f"tax{rng.randrange(5)}"), self.heavy(3000, 0.7))

    def _poisson(self, mean: float) -> int:
        threshold, k, product = math.exp(-mean), 0, self.rng.random()
        while product > threshold:
            k += 1
            product *= self.rng.random()
        return k

    # --- planted typologies ---

    def plant(self, accounts: list[Account]) -> None:
        pool = [a.index for a in accounts if a.entity_type == "individual"]
        self.rng.shuffle(pool)
        budget = {typology: int(self.n * self.share * share) for typology, share in TYPOLOGY_SHARES.items()}
        group = 0
        for typology in TYPOLOGIES:
            while budget[typology] > 0 and pool:
                size = min(self._group_size(typology), budget[typology], len(pool))
                if size < 1 or (typology != "structuring" and typology != "pass_through" and size < 3):
                    break
                members = [pool.pop() for _ in range(size)]
                getattr(self, f"_{typology}")([accounts[i].address for i in members], group)
                self.labels.update({i: (typology, group) for i in members})
                budget[typology] -= size
                group += 1

    def _group_size(self, typology: str) -> int:
        rng = self.rng
        return {"fan_in": rng.randint(9, 17), "fan_out": rng.randint(9, 17), "cycle": rng.randint(3, 7),
                "scatter_gather": rng.randint(5, 10), "structuring": 1, "pass_through": 1}[typology]  # fmt: skip

    def _start(self, room: float) -> float:
        return self.day(1, self.days - room)

    def _fan_in(self, members: list[str], group: int) -> None:
        """Mules each take an outside deposit and pass it to one collector within hours; the collector
        sends the pool offshore within the next days."""
        rng, collector, mules = self.rng, members[0], members[1:]
        day, pooled = self._start(4), Decimal(0)
        for mule in mules:
            deposit, when = money(rng.uniform(2500, 9000)), day + rng.uniform(0, 1.5)
            self.send(when, f"cash-in-{group}-{mule}", mule, deposit)
            passed = money(float(deposit) * rng.uniform(0.95, 0.995))
            self.send(when + rng.uniform(0.02, 0.5), mule, collector, passed)
            pooled += passed
        self._cash_out(collector, pooled, day + rng.uniform(1.6, 2.6), group)

    def _cash_out(self, account: str, amount: Decimal, day: float, group: int, parts: int | None = None) -> None:
        parts = parts or self.rng.randint(1, 3)
        share = float(amount) * self.rng.uniform(0.9, 0.99) / parts
        for part in range(parts):
            self.send(day + part * self.rng.uniform(0.01, 0.2), account, f"offshore-{group}-{part}", money(share))

    def _fan_out(self, members: list[str], group: int) -> None:
        """One outside inflow split among recipients within a day; each recipient cashes out."""
        rng, distributor, recipients = self.rng, members[0], members[1:]
        day, amount = self._start(3), money(rng.uniform(40_000, 150_000))
        self.send(day, f"wire-in-{group}", distributor, amount)
        weights = [rng.uniform(0.7, 1.3) for _ in recipients]
        total = float(amount) * rng.uniform(0.93, 0.99)
        for recipient, weight in zip(recipients, weights, strict=True):
            part, when = money(total * weight / sum(weights)), day + rng.uniform(0.05, 1.0)
            self.send(when, distributor, recipient, part)
            self._cash_out(recipient, part, when + rng.uniform(0.1, 0.9), group, parts=1)

    def _cycle(self, members: list[str], group: int) -> None:
        """Value goes round the members and back to the first, a little less at each hop, within days."""
        rng = self.rng
        day, amount = self._start(6), money(rng.uniform(5_000, 60_000))
        self.send(day - rng.uniform(0.1, 1), f"wire-in-{group}", members[0], amount)
        for hop, sender in enumerate(members):
            recipient = members[(hop + 1) % len(members)]
            amount = money(float(amount) * rng.uniform(0.97, 0.995))
            day += rng.uniform(0.05, 0.8)
            self.send(day, sender, recipient, amount)

    def _scatter_gather(self, members: list[str], group: int) -> None:
        """A source splits an inflow among intermediaries who each pass their part to one sink."""
        rng, source, sink, middle = self.rng, members[0], members[1], members[2:]
        day, amount = self._start(4), money(rng.uniform(20_000, 120_000))
        self.send(day, f"wire-in-{group}", source, amount)
        gathered = Decimal(0)
        for intermediary in middle:
            part, when = money(float(amount) / len(middle) * rng.uniform(0.9, 1.1)), day + rng.uniform(0.05, 0.6)
            self.send(when, source, intermediary, part)
            passed = money(float(part) * rng.uniform(0.95, 0.995))
            self.send(when + rng.uniform(0.1, 1.2), intermediary, sink, passed)
            gathered += passed
        self._cash_out(sink, gathered, day + rng.uniform(2.0, 2.9), group)

    def _structuring(self, members: list[str], group: int) -> None:
        """Deposits kept just under the 10,000 reporting threshold, several within a day or two."""
        rng, account = self.rng, members[0]
        day = self._start(3)
        for _ in range(rng.randint(3, 5)):
            self.send(day + rng.uniform(0, 0.9), f"cash-in-{group}-{rng.randrange(3)}", account, money(rng.uniform(8_200, 9_950)))

    def _pass_through(self, members: list[str], group: int) -> None:
        """A large outside inflow sent straight on, less a small cut, within hours."""
        rng, account = self.rng, members[0]
        day, amount = self._start(2), money(rng.uniform(4_000, 60_000))
        self.send(day, f"wire-in-{group}", account, amount)
        self._cash_out(account, amount, day + rng.uniform(0.05, 0.8), group, parts=rng.randint(1, 2))

    # --- the bank ---

    def bank(self) -> Bank:
        rng = self.rng
        accounts = [Account(i, f"acct{i:06d}", "business" if rng.random() < self.business_share else "individual") for i in range(self.n)]
        self.background(accounts)
        self.plant(accounts)
        accounts = [Account(a.index, a.address, a.entity_type, *self.labels.get(a.index, (None, None))) for a in accounts]
        ordered = sorted(self.transfers, key=lambda t: t[0])
        transfers = [Transfer(f"t{n:07d}", at, sender, recipient, usd) for n, (at, sender, recipient, usd) in enumerate(ordered)]
        parameters = {"accounts": self.n, "days": self.days, "laundering_share": self.share, "seed": self.seed,
                      "business_share": self.business_share, "start": START.isoformat()}  # fmt: skip
        return Bank(accounts, transfers, self.services, parameters)


def generate(**kwargs) -> Bank:
    return Generator(**kwargs).bank()


def write_csv(bank: Bank, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "accounts.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["account", "address", "entity_type", "typology", "group"])
        writer.writerows((a.index, a.address, a.entity_type, a.typology or "", "" if a.group is None else a.group) for a in bank.accounts)
    with (folder / "transfers.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["id", "timestamp", "from", "to", "usd"])
        writer.writerows((t.id, t.at.isoformat(), t.sender, t.recipient, t.usd) for t in bank.transfers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=20_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--laundering-share", type=float, default=0.09)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--csv", type=Path)
    args = parser.parse_args()
    bank = generate(accounts=args.accounts, days=args.days, laundering_share=args.laundering_share, seed=args.seed)
    counts = Counter(a.typology for a in bank.accounts if a.typology)
    print(f"{len(bank.accounts):,} accounts, {len(bank.transfers):,} transfers, {sum(counts.values()):,} laundering accounts")
    for typology, count in sorted(counts.items()):
        print(f"  {typology:<16}{count:>6,}")
    if args.csv:
        write_csv(bank, args.csv)


if __name__ == "__main__":
    main()
