"""The demo portfolio as data: about fifty customers with wallets on chain 1, two months of their
transfers and fiat events, and typologies that raise alerts in every rule family (docs/rules.md).

Pure and deterministic: `portfolio()` draws everything from one seeded `random.Random` and knows no
clock. Times are "seconds before the anchor" (the moment of seeding), so the same portfolio lands in
the last 60 days whenever it is seeded (all but one transfer: the dormant customer's, months
earlier); `Portfolio.digest()` is the same on every machine.

Customers' ordinary activity is shaped to stay below the rules (docs/rules.md, §3): crypto bought
on an exchange five days of the (portfolio's) week, about the same amount each day (a volume
spike is five times the daily average), small sends, pay or customer wires on the first day, bills
and cash on the last, past the 24 to 72-hour windows of the pass-through rules; amounts below the
value thresholds, not round, at ordinary merchants.
What raises alerts is the typologies, each on customers of its own (`Customer.story`).
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import asdict, dataclass, field

SEED = 20_260_601
DAYS = 60
DAY = 86_400
HOUR = 3_600
CHAIN_ID = 1
TAG_SOURCE = "demo portfolio"
EXTERNAL_ID_PREFIX = "demo-"

# Weekdays of the portfolio's week (day index modulo 7): crypto bought on days 0 to 4 (day 4 in the
# morning only: cash goes out on day 6, more than 48 hours later), pay or customer wires on day 0.
PAYDAY, CASH_DAY, LAST_CRYPTO_DAY = 0, 6, 4
CRYPTO_DAYS = range(LAST_CRYPTO_DAY + 1)

FIRST_NAMES = ("Emma", "Liam", "Olivia", "Noah", "Amelia", "Oliver", "Sophie", "Lucas", "Hannah", "Julian", "Clara", "Mateo",
               "Freya", "Elliot", "Nora", "Felix", "Ingrid", "Tobias", "Maya", "Rowan", "Leah", "Hugo", "Iris", "Caleb",
               "Ruby", "Silas", "Alice", "Theo", "Greta", "Owen")
LAST_NAMES = ("Whitfield", "Hargrove", "Lindqvist", "Castellano", "Pemberton", "Okafor", "Brennan", "Vasquez", "Thornbury",
              "Albrecht", "Sorensen", "Delacroix", "Kowalczyk", "Fairweather", "Nakamura", "Ashdown", "Holloway", "Marchetti",
              "Quinlan", "Rasmussen", "Ellingham", "Vandermeer", "Galloway", "Birchall", "Montague", "Lockridge", "Halvorsen",
              "Carrington", "Winslow", "Dunmore")
BUSINESS_WORDS = ("Harbor", "Summit", "Cedar", "Northwind", "Bluestone", "Copperfield", "Riverbend", "Ironwood", "Lakeshore",
                  "Silverline", "Brightwater", "Redwood", "Granite", "Meadowlark", "Oakridge", "Westbrook", "Stonegate",
                  "Clearview", "Pinecrest", "Sunhaven")
BUSINESS_KINDS = (("Software", "software development"), ("Logistics", "freight logistics"), ("Studios", "media production"),
                  ("Dental Care", "healthcare"), ("Outfitters", "retail clothing"), ("Analytics", "data analytics"),
                  ("Builders", "construction"), ("Foods", "food wholesale"), ("Consulting", "management consulting"),
                  ("Robotics", "industrial automation"))
EMPLOYERS = ("Northgate Health System", "Brightline Engineering Inc", "Cobalt Retail Group", "Mapleton School District",
             "Vireo Labs Inc", "Crescent Insurance Co", "Tidewater Shipping LLC", "Alder University")
BANKS = ("First Harbor Bank", "Lakeside Federal Credit Union", "Cascade National Bank", "Union Prairie Bank",
         "Summit Trust Bank", "Keystone Savings Bank")
MERCHANTS = (("Green Basket Grocery", "5411"), ("Corner Bistro", "5812"), ("Fuel Stop", "5541"), ("City Pharmacy", "5912"),
             ("Bookshelf & Co", "5942"), ("Metro Transit", "4111"), ("Hardware Depot", "5251"), ("Daily Grind Coffee", "5814"),
             ("Electro Mart", "5732"), ("Streamflix", "4899"))
BILLS = ("Parkview Apartments", "Metro Power & Light", "Clearwave Telecom", "Sunrise Property Management")

# (jurisdiction, state or region, city, postal code, street)
PLACES = {
    "US": (("NY", "New York", "10013", "Hudson St"), ("CA", "San Francisco", "94107", "Brannan St"),
           ("TX", "Austin", "78701", "Congress Ave"), ("IL", "Chicago", "60607", "Randolph St"), ("FL", "Miami", "33131", "Brickell Ave"),
           ("WA", "Seattle", "98101", "Pine St"), ("MA", "Boston", "02110", "Summer St"), ("CO", "Denver", "80202", "Larimer St")),
    "GB": (("", "London", "EC2A 4NE", "Old Street"), ("", "Manchester", "M1 1AE", "Piccadilly")),
    "DE": (("", "Berlin", "10117", "Friedrichstrasse"), ("", "Hamburg", "20095", "Moenckebergstrasse")),
    "CA": (("ON", "Toronto", "M5V 2T6", "King St W"), ("BC", "Vancouver", "V6B 1A1", "Granville St")),
    "AU": (("NSW", "Sydney", "2000", "George St"),),
    "SG": (("", "Singapore", "018956", "Marina Blvd"),),
    "FR": (("", "Paris", "75002", "Rue de la Paix"),),
    "NL": (("", "Amsterdam", "1012 JS", "Damrak"),),
    "CH": (("", "Zurich", "8001", "Bahnhofstrasse"),),
    "AE": (("", "Dubai", "00000", "Sheikh Zayed Rd"),),
    "KY": (("", "George Town", "KY1-1102", "Harbour Dr"),),
    "VG": (("", "Road Town", "VG1110", "Main St"),),
    "MM": (("", "Yangon", "11181", "Strand Rd"),),
}
# Jurisdictions of the ordinary customers, in this order: mostly US, as the typologies' customers (their reports go to FinCEN).
ORDINARY_JURISDICTIONS = ("US",) * 14 + ("GB",) * 4 + ("DE",) * 3 + ("CA",) * 2 + ("AU", "SG", "SG", "FR", "NL", "CH", "AE", "KY", "VG")


@dataclass
class Customer:
    """One entity: its onboarding request body (as the API takes it), the review decision after
    onboarding, and what the portfolio shows with it."""

    key: str  # the external_id
    body: dict
    decision: str  # approve | pending | suspend | reject
    story: str = ""  # the typology it shows, "" for an ordinary customer
    decision_reason: str = ""


@dataclass
class Portfolio:
    customers: list[Customer] = field(default_factory=list)
    tags: list[dict] = field(default_factory=list)  # address tags: chain_id, address, category
    transfers: list[dict] = field(default_factory=list)  # transfer bodies; "before" instead of "timestamp"
    fiat_events: list[dict] = field(default_factory=list)  # fiat bodies; "customer" (key) instead of entity_id, "before"
    fincen_314a: tuple[str, str] = ("", "")  # (file name without its date, CSV text)
    sar_case: str = ""  # the customer whose case gets a validated SAR draft
    investigated_case: str = ""  # the customer whose case is under investigation
    dispositions: list[tuple[str, str, str, str]] = field(default_factory=list)  # (customer, rule code, disposition, notes)

    def digest(self) -> str:
        """SHA-256 of the whole portfolio: equal for equal seeds, whatever the clock."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True, default=str).encode()).hexdigest()


class _Builder:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.p = Portfolio()
        self.exchanges = [self.address() for _ in range(8)]
        self.p.tags += [{"chain_id": CHAIN_ID, "address": address, "category": "exchange"} for address in self.exchanges]
        self.mixer, self.darknet, self.scam = self.address(), self.address(), self.address()
        self.p.tags += [{"chain_id": CHAIN_ID, "address": self.mixer, "category": "mixer"},
                        {"chain_id": CHAIN_ID, "address": self.darknet, "category": "darknet"},
                        {"chain_id": CHAIN_ID, "address": self.scam, "category": "scam"}]
        self.names = self.rng.sample([(first, last) for first in FIRST_NAMES for last in LAST_NAMES], 60)
        self.businesses = self.rng.sample([(word, kind) for word in BUSINESS_WORDS for kind in BUSINESS_KINDS], 40)
        self.references: dict[str, int] = {}
        self.wallets: dict[str, list[str]] = {}

    # --- Primitives ------------------------------------------------------------------------------

    def address(self) -> str:
        return f"0x{self.rng.getrandbits(160):040x}"

    def tx_hash(self) -> str:
        return f"0x{self.rng.getrandbits(256):064x}"

    def money(self, low: float, high: float) -> str:
        """An amount with cents, never a round figure (.00 becomes .07)."""
        cents = self.rng.randrange(int(low * 100), int(high * 100))
        return f"{cents // 100}.{cents % 100 or 7:02d}"

    def moment(self, day: int, start_hour: float, end_hour: float) -> int:
        """Seconds before the anchor of a time on portfolio day `day` (0 = 60 days ago) between the hours."""
        second = self.rng.randrange(int(start_hour * HOUR), int(end_hour * HOUR))
        return (DAYS - day) * DAY - second

    def transfer(self, before: int, source: str, target: str, amount: str, asset: str = "USDC") -> None:
        self.p.transfers.append({"chain_id": CHAIN_ID, "from_address": source, "to_address": target, "amount": amount,
                                 "asset": asset, "tx_hash": self.tx_hash(), "before": before})

    def fiat(self, customer: str, before: int, event_type: str, amount: str, **fields) -> None:
        self.references[customer] = self.references.get(customer, 0) + 1
        reference = f"{customer.upper()}-{self.references[customer]:04d}"
        self.p.fiat_events.append({"customer": customer, "event_type": event_type, "amount": amount, "currency": "USD",
                                   "reference": reference, "before": before, **fields})

    # --- Customers ---------------------------------------------------------------------------------

    def customer(self, *, kind: str, jurisdiction: str, decision: str = "approve", story: str = "", industry: str = "",
                 monthly: int | None = None, wallets: int = 1, reason: str = "") -> Customer:
        number = len(self.p.customers) + 1
        key = f"{EXTERNAL_ID_PREFIX}{number:03d}"
        state, city, postal, street = self.rng.choice(PLACES[jurisdiction])
        address = {"line1": f"{self.rng.randrange(2, 990)} {street}", "city": city, "postal_code": postal, "country": jurisdiction}
        if state:
            address["state"] = state
        if kind == "individual":
            first, last = self.names.pop()
            body = {"legal_name": f"{first} {last}", "entity_type": "individual",
                    "date_of_birth": f"{self.rng.randrange(1958, 2003)}-{self.rng.randrange(1, 13):02d}-{self.rng.randrange(1, 29):02d}",
                    "email": f"{first.lower()}.{last.lower()}@example.com", "industry": industry or "salaried employee"}
            if jurisdiction == "US":
                body["tax_id"] = f"{self.rng.randrange(100, 666)}-{self.rng.randrange(10, 99)}-{self.rng.randrange(1000, 9999)}"
        else:
            word, (suffix, trade) = self.businesses.pop()
            form = {"US": "LLC", "GB": "Ltd", "DE": "GmbH", "CA": "Inc.", "AU": "Pty Ltd", "FR": "SAS", "NL": "B.V.", "CH": "AG"}
            body = {"legal_name": f"{word} {suffix} {form.get(jurisdiction, 'Ltd')}", "entity_type": "business",
                    "registration_number": f"REG-{self.rng.randrange(100000, 999999)}", "industry": industry or trade,
                    "website": f"https://{word.lower()}-{suffix.lower().replace(' ', '')}.example.com",
                    "email": f"finance@{word.lower()}-{suffix.lower().replace(' ', '')}.example.com"}
            if jurisdiction == "US":
                body["tax_id"] = f"{self.rng.randrange(10, 99)}-{self.rng.randrange(1000000, 9999999)}"
        addresses = [self.address() for _ in range(wallets)]
        self.wallets[key] = addresses
        body.update(jurisdiction=jurisdiction, external_id=key, address=address,
                    phone=f"+1 555 {self.rng.randrange(100, 999)} {self.rng.randrange(1000, 9999)}",
                    wallets=[{"chain_id": CHAIN_ID, "address": a, "label": f"wallet {i + 1}"} for i, a in enumerate(addresses)],
                    metadata={"demo_portfolio": True, **({"demo_typology": story} if story else {})})
        if monthly is not None:
            body["expected_monthly_volume_usd"] = str(monthly)
        customer = Customer(key=key, body=body, decision=decision, story=story, decision_reason=reason)
        self.p.customers.append(customer)
        return customer

    def ordinary(self, customer: Customer, *, first_day: int = 0, last_day: int = DAYS - 1, typical: float | None = None) -> None:
        """Two months of unremarkable activity: crypto bought on the exchange five days a week (one or two
        transfers a day, about the same each day), the odd small send, pay (or customer wires) on
        day 0 of the week, card spending, bills and cash on day 6 of the week."""
        business = customer.body["entity_type"] == "business"
        key, own = customer.key, self.wallets[customer.key][0]
        typical = typical or (self.rng.uniform(900, 2300) if business else self.rng.uniform(150, 800))
        exchanges = self.rng.sample(self.exchanges, 3)
        friends = [self.address() for _ in range(3)]
        pay = self.rng.uniform(4000, 8500) if business else self.rng.uniform(1800, 5200)
        employer, bank = self.rng.choice(EMPLOYERS), self.rng.choice(BANKS)
        pay_week = self.rng.randrange(2)
        card = "credit" if self.rng.random() < 0.5 else "debit"
        spend_rate = self.rng.uniform(0.2, 0.4) if business else self.rng.uniform(0.4, 0.8)
        country = customer.body["jurisdiction"]
        for day in range(first_day, last_day + 1):
            weekday = day % 7
            until = 12 if weekday == LAST_CRYPTO_DAY else 20
            if weekday in CRYPTO_DAYS and self.rng.random() < 0.95:
                parts = self.rng.choice((1, 2))
                for _ in range(parts):
                    source = self.rng.choice(exchanges) if typical >= 600 or self.rng.random() < 0.8 else self.rng.choice(friends)
                    self.transfer(self.moment(day, 8, until), source, own, self.money(0.9 * typical / parts, 1.1 * typical / parts))
            if weekday in CRYPTO_DAYS and self.rng.random() < 0.2:
                self.transfer(self.moment(day, 8, until), own, self.rng.choice(friends + exchanges),
                              self.money(0.03 * typical, 0.1 * typical), "USDT")
            if weekday == PAYDAY and (business or (day // 7) % 2 == pay_week):
                if business:
                    self.fiat(key, self.moment(day, 13, 18), "wire_in", self.money(0.9 * pay, 1.1 * pay),
                              counterparty_name=self.rng.choice(EMPLOYERS), counterparty_bank=bank)
                else:
                    self.fiat(key, self.moment(day, 6, 10), "ach_in", f"{pay:.2f}", counterparty_name=employer, counterparty_bank=bank)
            if self.rng.random() < spend_rate:
                merchant, mcc = self.rng.choice(MERCHANTS)
                self.fiat(key, self.moment(day, 9, 21), "card_purchase", self.money(6, 140), counterparty_name=merchant, card_type=card,
                          merchant_category_code=mcc, merchant_country=country)
            if weekday == CASH_DAY:
                if business:
                    self.fiat(key, self.moment(day, 14, 20), "ach_out", self.money(0.3 * pay, 0.5 * pay),
                              counterparty_name="Payroll services", counterparty_bank=bank)
                elif (day // 7) % 2 != pay_week:
                    self.fiat(key, self.moment(day, 14, 20), "ach_out", self.money(0.2 * pay, 0.3 * pay),
                              counterparty_name=self.rng.choice(BILLS), counterparty_bank=bank)
                if not business and self.rng.random() < 0.4:
                    self.fiat(key, self.moment(day, 14, 20), "card_atm", f"{self.rng.choice((40, 60, 80, 100, 140, 200))}.00",
                              card_type="debit", merchant_country=country)


def portfolio(seed: int = SEED) -> Portfolio:
    """The demo portfolio: the same for the same seed."""
    b = _Builder(seed)
    rng = b.rng

    # --- Typologies, one customer (or two) each; all but two also lead an ordinary life -------------

    structurer = b.customer(kind="individual", jurisdiction="US", story="structuring just under 10,000 USD, then a rapid pass-through",
                            monthly=6000)
    b.ordinary(structurer)
    mule_day = 50
    own = b.wallets[structurer.key][0]
    received = 0
    for hour in (9, 11.5, 14, 16.5):
        amount = b.money(9100, 9890)
        received += float(amount)
        b.transfer(b.moment(mule_day, hour, hour + 0.4), b.address(), own, amount)
    b.transfer(b.moment(mule_day, 19, 20), own, b.address(), f"{received * 0.97:.2f}")
    b.p.sar_case = structurer.key

    smurfed = b.customer(kind="business", jurisdiction="US", story="fan-in: many small payments from many senders in a day, sent on",
                         industry="online marketplace", monthly=60000)
    b.ordinary(smurfed)
    own = b.wallets[smurfed.key][0]
    gathered = 0.0
    for _ in range(20):
        amount = b.money(1200, 2200)
        gathered += float(amount)
        b.transfer(b.moment(46, 6, 21), b.address(), own, amount)
    b.transfer(b.moment(46, 22, 23), own, b.address(), f"{gathered * 0.97:.2f}")
    b.p.investigated_case = smurfed.key

    peeler = b.customer(kind="individual", jurisdiction="GB", story="fan-out and a peel chain after a large deposit", monthly=8000)
    b.ordinary(peeler)
    own = b.wallets[peeler.key][0]
    deposit = b.money(61000, 64000)
    b.transfer(b.moment(40, 10, 11), b.exchanges[0], own, deposit)
    shares = [1.0]
    for _ in range(11):
        shares.append(shares[-1] * rng.uniform(0.86, 0.95))
    scale = float(deposit) * 0.96 / sum(shares)  # nearly all of the deposit, in shrinking payments
    for hour, share in enumerate(shares):
        b.transfer(b.moment(42, 8 + hour, 8.9 + hour), own, b.address(), f"{share * scale:.2f}")
    b.p.dispositions.append((peeler.key, "fan_out", "true_positive",
                             "The deposit left within a day in a dozen shrinking payments to new wallets: layering."))

    mixer_user = b.customer(kind="individual", jurisdiction="DE", story="a mixer and a darknet market", decision="pending")
    b.ordinary(mixer_user)
    own = b.wallets[mixer_user.key][0]
    b.transfer(b.moment(37, 22, 23), own, b.mixer, b.money(7200, 7900))
    b.transfer(b.moment(52, 2, 3), b.darknet, own, b.money(1900, 2400))
    b.transfer(b.moment(55, 1, 2), own, b.scam, b.money(600, 900), "USDT")
    b.p.dispositions.append((mixer_user.key, "mixer_exposure", "true_positive",
                             "The address is a mixer's deposit contract (blockchain analytics); the customer gave no reason for it."))

    otc = b.customer(kind="business", jurisdiction="US", story="large, round transfers with exchanges", industry="OTC trading desk",
                     monthly=900000)
    b.ordinary(otc, typical=2200)
    own = b.wallets[otc.key][0]
    b.transfer(b.moment(33, 9, 10), b.exchanges[1], own, "120000.00")
    for day in (34, 35, 37):
        b.transfer(b.moment(day, 10, 16), own, b.exchanges[2], "25000.00")

    sleeper = b.customer(kind="individual", jurisdiction="US", story="dormant for months, then a large deposit")
    own = b.wallets[sleeper.key][0]
    b.transfer((DAYS + 170) * DAY - 11 * HOUR, b.exchanges[3], own, b.money(300, 600))  # the one event before the 60 days
    b.transfer(b.moment(54, 15, 16), b.address(), own, b.money(14000, 16500))

    bot = b.customer(kind="business", jurisdiction="SG", story="bursts of many transfers within an hour", industry="trading software",
                     monthly=80000)
    b.ordinary(bot)
    own = b.wallets[bot.key][0]
    start = b.moment(44, 3, 4)
    for index in range(26):
        b.transfer(start - index * 110, own if index % 2 else b.exchanges[4], b.exchanges[4] if index % 2 else own, b.money(40, 95))

    newcomer = b.customer(kind="individual", jurisdiction="US", story="a large deposit to a wallet first seen days ago", wallets=2)
    b.ordinary(newcomer, last_day=50)
    b.transfer(b.moment(56, 10, 12), b.address(), b.wallets[newcomer.key][1], b.money(8000, 9000))
    b.p.dispositions.append((newcomer.key, "new_wallet_large_transfer", "false_positive",
                             "The customer's new hardware wallet; the deposit is the sale of a car, bill of sale on file."))

    risky = b.customer(kind="business", jurisdiction="MM", story="a customer in a FATF call-for-action jurisdiction",
                       industry="precious metals trading", decision="pending", monthly=50000)
    b.ordinary(risky)

    cash = b.customer(kind="business", jurisdiction="US", story="deposits structured under the CTR threshold; a large wire (CTR)",
                      industry="used car dealer", monthly=150000)
    b.ordinary(cash)
    for day, hour in ((47, 10), (47, 15), (49, 11)):
        b.fiat(cash.key, b.moment(day, hour, hour + 1), "check_deposit", b.money(9100, 9900), check_type="business",
               check_number=str(rng.randrange(20000, 90000)), deposit_method="teller", counterparty_name="Customer payment")
    b.fiat(cash.key, b.moment(53, 15, 16), "wire_in", b.money(12500, 14500), counterparty_name="Westlake Auto Auction",
           counterparty_bank="Cascade National Bank")
    for day in (56, 58):
        b.fiat(cash.key, b.moment(day, 10, 12), "check_purchase", b.money(5100, 5600), check_type="money_order",
               check_number=str(rng.randrange(10 ** 9, 10 ** 10)))

    layering = b.customer(kind="business", jurisdiction="US", story="wires in and straight out to new counterparties",
                          industry="import export", monthly=200000)
    b.ordinary(layering)
    b.fiat(layering.key, b.moment(41, 14, 15), "wire_in", "85000.00", counterparty_name="Pacific Rim Holdings Ltd",
           counterparty_bank="Harbor International Bank")
    b.fiat(layering.key, b.moment(43, 9, 10), "wire_out", "82000.00", counterparty_name="Oriental Star Trading FZE",
           counterparty_bank="Gulf Commercial Bank")
    b.fiat(layering.key, b.moment(44, 15, 16), "wire_out", "20000.00", counterparty_name="Kestrel Freight Forwarding",
           counterparty_bank="Gulf Commercial Bank")

    carder = b.customer(kind="individual", jurisdiction="US", story="card testing, gambling merchants and ATM withdrawals")
    b.ordinary(carder)
    start = b.moment(48, 2, 3)
    for index in range(7):
        b.fiat(carder.key, start - index * 300, "card_purchase", b.money(0.5, 4.5), counterparty_name=f"webshop-{index + 1}.example",
               card_type="credit", merchant_category_code="5999", merchant_country="US")
    for day in (51, 53, 55):
        b.fiat(carder.key, b.moment(day, 20, 23), "card_purchase", b.money(180, 450), counterparty_name="Lucky Star Casino Online",
               card_type="credit", merchant_category_code="7995", merchant_country="US")
    for index in range(6):
        b.fiat(carder.key, b.moment(57, 1 + 3 * index, 3 + 3 * index), "card_atm", f"{rng.choice((300, 400, 500))}.00",
               card_type="debit", merchant_country="US")

    loader = b.customer(kind="individual", jurisdiction="US", story="many prepaid card loads in a day")
    b.ordinary(loader)
    for index in range(6):
        b.fiat(loader.key, b.moment(45, 8 + 2 * index, 9 + 2 * index), "card_load", b.money(1500, 1990), card_type="prepaid",
               counterparty_name="QuickLoad Prepaid")

    kiter = b.customer(kind="business", jurisdiction="US", story="duplicate and sequential checks, deposits drained at once",
                       industry="construction subcontractor", monthly=120000)
    b.ordinary(kiter)
    amount = b.money(6200, 6900)
    b.fiat(kiter.key, b.moment(36, 10, 12), "check_deposit", amount, check_type="business", check_number="000781",
           deposit_method="rdc_mobile", counterparty_name="Alder County Works")
    b.fiat(kiter.key, b.moment(38, 10, 12), "check_deposit", amount, check_type="business", check_number="781",
           deposit_method="teller", counterparty_name="Alder County Works")
    for index, day in enumerate((47, 48, 50)):
        b.fiat(kiter.key, b.moment(day, 9, 11), "check_deposit", b.money(2400, 3900), check_type="business",
               check_number=str(4411 + index), deposit_method="rdc_desktop", counterparty_name="Granite Ridge Homes")
    for day in (51, 54):
        deposit = rng.uniform(11000, 14000)
        b.fiat(kiter.key, b.moment(day, 8, 9), "check_deposit", f"{deposit:.2f}", check_type="business",
               deposit_method="rdc_mobile", counterparty_name="Granite Ridge Homes")
        b.fiat(kiter.key, b.moment(day + 1, 9, 12), "wire_out", f"{deposit * 0.95:.2f}", counterparty_name="Stonebridge Supply Co",
               counterparty_bank="Keystone Savings Bank")

    onramp = b.customer(kind="individual", jurisdiction="US", story="a wire in, sent out as crypto within two days")
    b.ordinary(onramp)
    wired = rng.uniform(29000, 33000)
    b.fiat(onramp.key, b.moment(39, 14, 15), "wire_in", f"{wired:.2f}", counterparty_name="Harlow Estate Trust",
           counterparty_bank="Summit Trust Bank")
    b.transfer(b.moment(40, 16, 17), b.wallets[onramp.key][0], b.address(), f"{wired * 0.93:.2f}")

    offramp = b.customer(kind="individual", jurisdiction="US", story="crypto received from an unknown wallet, then wired out")
    b.ordinary(offramp)
    received = rng.uniform(21000, 24000)
    b.transfer(b.moment(44, 9, 10), b.address(), b.wallets[offramp.key][0], f"{received:.2f}")
    b.fiat(offramp.key, b.moment(45, 10, 11), "wire_out", f"{received * 0.9:.2f}", counterparty_name="Marlowe Holdings SA",
           counterparty_bank="Banco Atlantico")

    outgrown = b.customer(kind="business", jurisdiction="US", story="activity far above the declared monthly volume",
                          industry="marketing agency", monthly=2500)
    b.ordinary(outgrown)

    suspended = b.customer(kind="business", jurisdiction="GB", story="activity after the account was suspended",
                           decision="suspend", reason="Source of funds not evidenced after two requests")
    b.ordinary(suspended)

    # --- Ordinary customers -----------------------------------------------------------------------

    decisions = ["approve"] * 24 + ["pending"] * 7 + ["reject"]
    rng.shuffle(decisions)
    for index, jurisdiction in enumerate(ORDINARY_JURISDICTIONS):
        kind = "business" if index % 3 == 2 else "individual"
        decision = decisions[index]
        customer = b.customer(kind=kind, jurisdiction=jurisdiction, decision=decision,
                              industry="crypto exchange" if jurisdiction in ("KY", "VG") else "",
                              reason="Could not verify identity documents" if decision == "reject" else "")
        customer.body["expected_monthly_volume_usd"] = "250000" if kind == "business" else "40000"
        if decision != "reject":  # turned away at onboarding: no activity
            b.ordinary(customer, first_day=rng.randrange(0, 10))

    # --- A 314(a) list naming two of them ---------------------------------------------------------

    by_key = {customer.key: customer.body for customer in b.p.customers}
    person, company = by_key[structurer.key], by_key[layering.key]
    given, family = person["legal_name"].split(" ", 1)
    rows = [
        ["Name", "Type", "DOB", "SSN_ITIN", "EIN", "Address", "City", "State", "Zip", "Alt_Names"],
        [f"{family.upper()}, {given.upper()}", "Individual", person["date_of_birth"], "", "", "", person["address"]["city"],
         person["address"].get("state", ""), "", ""],
        [company["legal_name"].upper(), "Business", "", "", company["tax_id"], "", "", "", "", "Pacific Rim Holdings"],
        ["DRAVEN, MARCUS ELIOT", "Individual", "1971-04-12", "", "", "17 Quarry Lane", "Tulsa", "OK", "74103", ""],
        ["SOLANO-BRIGHT, ANIKA", "Individual", "1988-09-30", "", "", "", "Phoenix", "AZ", "", "Anika Bright"],
        ["GREYMOOR CAPITAL PARTNERS LLC", "Business", "", "", "", "400 Commerce St", "Wilmington", "DE", "19801", ""],
        ["OYELARAN, TUNDE", "Individual", "1979-01-23", "", "", "", "Houston", "TX", "", ""],
    ]
    b.p.fincen_314a = ("314a_demo.csv", "\n".join(",".join(f'"{cell}"' if "," in cell else cell for cell in row) for row in rows) + "\n")
    return b.p
