"""SplitMix64, the one PRNG both worker runtimes draw from (workloads/README.md, "The PRNG").

Small, fast, and simple enough to write identically in Python and Go: the same seed draws the same
values in both, which ``workloads/testdata/generators.json`` pins for both test suites. Not for
cryptography; its 64-bit state is plenty for load generation.
"""

from __future__ import annotations

MASK = 0xFFFF_FFFF_FFFF_FFFF
GAMMA = 0x9E37_79B9_7F4A_7C15
FNV_OFFSET = 0xCBF2_9CE4_8422_2325
FNV_PRIME = 0x0000_0100_0000_01B3
UNIT = 2.0**-53


def mix(z: int) -> int:
    """SplitMix64's finalizer."""
    z = ((z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB) & MASK
    return z ^ (z >> 31)


def fnv1a(text: str) -> int:
    """FNV-1a 64 of the UTF-8 bytes of ``text``."""
    h = FNV_OFFSET
    for byte in text.encode():
        h = ((h ^ byte) * FNV_PRIME) & MASK
    return h


class SplitMix64:
    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & MASK

    def u64(self) -> int:
        self.state = (self.state + GAMMA) & MASK
        return mix(self.state)

    def below(self, n: int) -> int:
        """An integer in [0, n): the high 64 bits of u64() * n."""
        return (self.u64() * n) >> 64

    def unit(self) -> float:
        """A double in [0, 1)."""
        return (self.u64() >> 11) * UNIT

    def between(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]."""
        return lo + self.below(hi - lo + 1)


def stream(seed: int, label: str, index: int) -> SplitMix64:
    """The generator of draw sequence ``index`` under ``label`` (an operation's execution, a load row)."""
    return stream_at(label_base(seed, label), index)


def label_base(seed: int, label: str) -> int:
    """``mix(seed ^ fnv1a(label))``: computed once per label, so that each execution's stream costs
    one ``mix`` (:func:`stream_at`)."""
    return mix((seed ^ fnv1a(label)) & MASK)


def stream_at(base: int, index: int) -> SplitMix64:
    """``stream(seed, label, index)`` from ``label_base(seed, label)``."""
    return SplitMix64(mix((base + index) & MASK))


def operation_label(operation: str, worker: int) -> str:
    return f"op/{operation}/{worker}"


def load_label(table: str) -> str:
    return f"load/{table}"
