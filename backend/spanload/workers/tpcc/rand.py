"""TPC-C's random values (clause 2.1.6 and 4.3.2): NURand, customer last names, the strings of
the initial population, and the deck that deals the transaction mix.

NURand's constant ``C`` is drawn per run for customer ids and item ids. For last names the load
and the run use two fixed constants whose difference (73) is one the spec allows (65..119, not 96
or 112), so a run on a database loaded by another run still meets clause 2.1.6.1.
"""

from __future__ import annotations

import random
import string
import threading
from decimal import Decimal

from spanload.model.tpcc import MIX, TxType

SYLLABLES = ("BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING")
C_LAST_LOAD = 157
C_LAST_RUN = C_LAST_LOAD + 73
A_LAST, A_CUSTOMER, A_ITEM = 255, 1023, 8191
NAMES = 1000  # last names 0..999
_ALNUM = string.ascii_letters + string.digits


def last_name(number: int) -> str:
    """The last name of a number 0..999: three syllables, one per decimal digit (371 -> PRICALLYOUGHT)."""
    return SYLLABLES[number // 100] + SYLLABLES[number // 10 % 10] + SYLLABLES[number % 10]


def nurand(rng: random.Random, a: int, x: int, y: int, c: int) -> int:
    """NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x."""
    return ((rng.randint(0, a) | rng.randint(x, y)) + c) % (y - x + 1) + x


def astring(rng: random.Random, lo: int, hi: int) -> str:
    return "".join(rng.choices(_ALNUM, k=rng.randint(lo, hi)))


def nstring(rng: random.Random, lo: int, hi: int) -> str:
    return "".join(rng.choices(string.digits, k=rng.randint(lo, hi)))


def zip_code(rng: random.Random) -> str:
    return nstring(rng, 4, 4) + "11111"


def data_field(rng: random.Random) -> str:
    """I_DATA / S_DATA: 26..50 characters, 10 % of them with ORIGINAL somewhere inside."""
    text = astring(rng, 26, 50)
    if rng.random() < 0.1:
        at = rng.randint(0, len(text) - 8)
        text = text[:at] + "ORIGINAL" + text[at + 8 :]
    return text


def money(rng: random.Random, lo_cents: int, hi_cents: int) -> Decimal:
    return Decimal(rng.randint(lo_cents, hi_cents)).scaleb(-2)


def rate(rng: random.Random, lo: int, hi: int) -> Decimal:
    """A tax or discount: lo..hi ten-thousandths (0.0000 .. 0.2000)."""
    return Decimal(rng.randint(lo, hi)).scaleb(-4)


class RunRandom:
    """One terminal's (or thread's) random inputs for a run, with the run's NURand constants."""

    def __init__(self, items: int, customers: int, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()
        self.items = items
        self.customers = customers
        self.c_customer = self.rng.randint(0, A_CUSTOMER)
        self.c_item = self.rng.randint(0, A_ITEM)

    def customer_id(self) -> int:
        return nurand(self.rng, A_CUSTOMER, 1, self.customers, self.c_customer)

    def item_id(self) -> int:
        return nurand(self.rng, A_ITEM, 1, self.items, self.c_item)

    def last_name(self) -> str:
        """A last name that exists in every district: below 1,000 customers a district has the
        names 0..customers-1, so the draw is folded into that range."""
        return last_name(nurand(self.rng, A_LAST, 0, min(NAMES, self.customers) - 1, C_LAST_RUN))


class Deck:
    """The mix dealt from a shuffled deck of 100 cards (45 New-Order, 43 Payment, 4 each of the
    others), reshuffled when empty: every 100 transactions dealt have exactly the standard mix.
    Shared by the threads of a worker process."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng or random.Random()
        self._cards: list[TxType] = []
        self._lock = threading.Lock()

    def deal(self) -> TxType:
        with self._lock:
            if not self._cards:
                self._cards = [t for t, n in MIX.items() for _ in range(n)]
                self._rng.shuffle(self._cards)
            return self._cards.pop()
