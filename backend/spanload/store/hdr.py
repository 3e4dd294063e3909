"""Compact storage of HdrHistograms: several ops' histograms in one binary blob.

Each histogram is kept in HdrHistogram's standard compressed encoding (the bytes under the
base64 of ``Sample.hdr``), so storing it costs 3/4 of the base64 text and loses nothing.
Blob layout, repeated per op: varint(len(op)) op varint(len(hist)) hist.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping

from hdrh.histogram import HdrHistogram

from spanload.model import metrics


class HdrBlobError(ValueError):
    """A stored histogram blob is truncated or malformed."""


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if pos >= len(data):
            raise HdrBlobError("histogram blob ends inside a length")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def pack(histograms: Mapping[str, bytes]) -> bytes:
    """``{op: compressed histogram bytes}`` -> one blob."""
    out = bytearray()
    for op, hist in sorted(histograms.items()):
        name = op.encode()
        out += _varint(len(name)) + name + _varint(len(hist)) + hist
    return bytes(out)


def unpack(blob: bytes) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    pos = 0
    while pos < len(blob):
        n, pos = _read_varint(blob, pos)
        op = blob[pos : pos + n].decode()
        pos += n
        n, pos = _read_varint(blob, pos)
        if pos + n > len(blob):
            raise HdrBlobError(f"histogram blob for {op!r} is truncated")
        out[op] = blob[pos : pos + n]
        pos += n
    return out


def pack_b64(histograms: Mapping[str, str]) -> bytes:
    """``Sample.hdr`` (op -> base64) -> one blob."""
    return pack({op: base64.b64decode(text) for op, text in histograms.items()})


def unpack_b64(blob: bytes) -> dict[str, str]:
    return {op: base64.b64encode(hist).decode() for op, hist in unpack(blob).items()}


def merge_blobs(blobs: Iterable[bytes]) -> dict[str, HdrHistogram]:
    """Merge the histograms of many blobs, per op. Lossless: counts are added bucket by bucket."""
    merged: dict[str, HdrHistogram] = {}
    for blob in blobs:
        for op, hist in unpack(blob).items():
            if op not in merged:
                merged[op] = metrics.new_histogram()
            metrics.add_encoded(merged[op], base64.b64encode(hist))
    return merged


def pack_histograms(histograms: Mapping[str, HdrHistogram]) -> bytes:
    return pack({op: base64.b64decode(h.encode()) for op, h in histograms.items()})
