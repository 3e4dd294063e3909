"""An independent Python implementation of FarmHash Fingerprint64 (farmhashna::Hash64).

Spanner's FARM_FINGERPRINT(x) is Fingerprint64 of the bytes of x, read as a signed INT64.
This module exists so the tests can compute expected values without trusting the server.
"""

from __future__ import annotations

MASK = (1 << 64) - 1
K0 = 0xC3A5C85C97CB3127
K1 = 0xB492B66FBE98F273
K2 = 0x9AE16A3B2F90404F


def _fetch64(s: bytes, i: int) -> int:
    return int.from_bytes(s[i : i + 8], "little")


def _fetch32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i : i + 4], "little")


def _rotate(v: int, shift: int) -> int:
    if shift == 0:
        return v
    return ((v >> shift) | (v << (64 - shift))) & MASK


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _hash_len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & MASK
    b ^= b >> 47
    return (b * mul) & MASK


def _hash_len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = K2 + n * 2
        a = (_fetch64(s, 0) + K2) & MASK
        b = _fetch64(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & MASK
        d = ((_rotate(a, 25) + b) * mul) & MASK
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = K2 + n * 2
        a = _fetch32(s, 0)
        return _hash_len16((n + (a << 3)) & MASK, _fetch32(s, n - 4), mul)
    if n > 0:
        a, b, c = s[0], s[n >> 1], s[n - 1]
        y = (a + (b << 8)) & 0xFFFFFFFF
        z = (n + (c << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * K2) ^ (z * K0)) & MASK) * K2) & MASK
    return K2


def _hash_len17to32(s: bytes) -> int:
    n = len(s)
    mul = K2 + n * 2
    a = (_fetch64(s, 0) * K1) & MASK
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & MASK
    d = (_fetch64(s, n - 16) * K2) & MASK
    return _hash_len16(
        (_rotate((a + b) & MASK, 43) + _rotate(c, 30) + d) & MASK,
        (a + _rotate((b + K2) & MASK, 18) + c) & MASK,
        mul,
    )


def _hash_len33to64(s: bytes) -> int:
    n = len(s)
    mul = K2 + n * 2
    a = (_fetch64(s, 0) * K2) & MASK
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & MASK
    d = (_fetch64(s, n - 16) * K2) & MASK
    y = (_rotate((a + b) & MASK, 43) + _rotate(c, 30) + d) & MASK
    z = _hash_len16(y, (a + _rotate((b + K2) & MASK, 18) + c) & MASK, mul)
    e = (_fetch64(s, 16) * mul) & MASK
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & MASK
    h = ((z + _fetch64(s, n - 24)) * mul) & MASK
    return _hash_len16(
        (_rotate((e + f) & MASK, 43) + _rotate(g, 30) + h) & MASK,
        (e + _rotate((f + a) & MASK, 18) + g) & MASK,
        mul,
    )


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _fetch64(s, i), _fetch64(s, i + 8), _fetch64(s, i + 16), _fetch64(s, i + 24)
    a = (a + w) & MASK
    b = _rotate((b + a + z) & MASK, 21)
    c = a
    a = (a + x + y) & MASK
    b = (b + _rotate(a, 44)) & MASK
    return (a + z) & MASK, (b + c) & MASK


def fingerprint64(data: bytes) -> int:
    """FarmHash Fingerprint64 of ``data`` as an unsigned 64-bit integer."""
    s = data
    n = len(s)
    if n <= 16:
        return _hash_len0to16(s)
    if n <= 32:
        return _hash_len17to32(s)
    if n <= 64:
        return _hash_len33to64(s)
    seed = 81
    x = seed
    y = (seed * K1 + 113) & MASK
    z = (_shift_mix((y * K2 + 113) & MASK) * K2) & MASK
    v = (0, 0)
    w = (0, 0)
    x = (x * K2 + _fetch64(s, 0)) & MASK
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & MASK, 37) * K1) & MASK
        y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & MASK, 42) * K1) & MASK
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, i + 40)) & MASK
        z = (_rotate((z + w[0]) & MASK, 33) * K1) & MASK
        v = _weak32(s, i, (v[1] * K1) & MASK, (x + w[0]) & MASK)
        w = _weak32(s, i + 32, (z + w[1]) & MASK, (y + _fetch64(s, i + 16)) & MASK)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & MASK
    v0 = (v[0] + w0) & MASK
    w0 = (w0 + v0) & MASK
    v = (v0, v[1])
    w = (w0, w[1])
    x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & MASK, 37) * mul) & MASK
    y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & MASK, 42) * mul) & MASK
    x ^= (w[1] * 9) & MASK
    y = (y + v[0] * 9 + _fetch64(s, i + 40)) & MASK
    z = (_rotate((z + w[0]) & MASK, 33) * mul) & MASK
    v = _weak32(s, i, (v[1] * mul) & MASK, (x + w[0]) & MASK)
    w = _weak32(s, i + 32, (z + w[1]) & MASK, (y + _fetch64(s, i + 16)) & MASK)
    z, x = x, z
    return _hash_len16(
        (_hash_len16(v[0], w[0], mul) + _shift_mix(y) * K0 + z) & MASK,
        (_hash_len16(v[1], w[1], mul) + x) & MASK,
        mul,
    )


def farm_fingerprint(data: bytes | str) -> int:
    """Spanner's FARM_FINGERPRINT: Fingerprint64 of the (UTF-8) bytes as a signed INT64."""
    raw = data.encode() if isinstance(data, str) else data
    u = fingerprint64(raw)
    return u - (1 << 64) if u >= 1 << 63 else u


def spanner_mod(x: int, m: int) -> int:
    """Spanner's MOD on INT64: the remainder takes the sign of the dividend (exact, no floats)."""
    r = abs(x) % abs(m)
    return -r if x < 0 else r


def change_watcher_shard(row_id: str) -> int:
    """The Change Watcher table's ShardId: MOD(FARM_FINGERPRINT(Id), 19), in -18..18."""
    return spanner_mod(farm_fingerprint(row_id), 19)
