"""HMAC_DRBG with SHA-256 (NIST SP 800-90A Rev. 1, section 10.1.2) and the dealer's byte stream.

The DRBG is used without reseeding, prediction resistance or additional input: it turns one
32-byte shuffle key into a reproducible stream of bytes. `DrbgStream` defines exactly how the
shuffle consumes it: the stream is the concatenation of successive Generate calls that each
request 32 bytes (one HMAC output), read front to back. A verifier in another language must
consume bytes the same way to reproduce a deck (docs/dealer.md).
"""

from __future__ import annotations

import hashlib

OUTLEN = 32  # bytes per HMAC-SHA256 output and per Generate call of the stream


_BLOCK = 64  # SHA-256's block size, HMAC's B (RFC 2104)
_IPAD = bytes(x ^ 0x36 for x in range(256))  # bytes.translate tables: XOR with ipad, opad
_OPAD = bytes(x ^ 0x5C for x in range(256))


def hmac_pads(key: bytes) -> tuple[bytes, bytes]:
    """HMAC-SHA256's two key blocks, K ^ ipad and K ^ opad (RFC 2104; a key longer than a
    block is hashed first): HMAC(K, m) = H(K ^ opad || H(K ^ ipad || m)). A caller hashing
    many messages under one key starts each hash from these."""
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    padded = key.ljust(_BLOCK, b"\x00")
    return padded.translate(_IPAD), padded.translate(_OPAD)


def _hmac(key: bytes, data: bytes) -> bytes:
    """HMAC-SHA256 written out from `hmac_pads`: for the DRBG's 32-byte keys and short
    messages it costs about half of `hmac.digest`'s one-shot."""
    ipad, opad = hmac_pads(key)
    return hashlib.sha256(opad + hashlib.sha256(ipad + data).digest()).digest()


class HmacDrbg:
    """HMAC_DRBG(SHA-256): Instantiate, Generate; state is (Key, V) as in SP 800-90A."""

    def __init__(
        self, entropy_input: bytes, nonce: bytes = b"", personalization: bytes = b""
    ) -> None:
        self._key = b"\x00" * OUTLEN
        self._v = b"\x01" * OUTLEN
        self._update(entropy_input + nonce + personalization)

    def _update(self, provided_data: bytes) -> None:
        self._key = _hmac(self._key, self._v + b"\x00" + provided_data)
        self._v = _hmac(self._key, self._v)
        if provided_data:
            self._key = _hmac(self._key, self._v + b"\x01" + provided_data)
            self._v = _hmac(self._key, self._v)

    def generate(self, num_bytes: int) -> bytes:
        """Return `num_bytes` pseudorandom bytes (no additional input), then update the state."""
        out = bytearray()
        while len(out) < num_bytes:
            self._v = _hmac(self._key, self._v)
            out += self._v
        self._update(b"")
        return bytes(out[:num_bytes])


class DrbgStream:
    """Bytes read in order from successive 32-byte Generate calls of an HmacDrbg keyed by `key`.

    Instantiate uses entropy_input = key, an empty nonce and an empty personalization string:
    the key is already unique per shuffle, segment and contribution set.
    """

    def __init__(self, key: bytes) -> None:
        self._drbg = HmacDrbg(key)
        self._buffer = b""
        self._pos = 0
        self.bytes_read = 0

    def read(self, num_bytes: int) -> bytes:
        """The next `num_bytes` of the stream."""
        end = self._pos + num_bytes
        if end > len(self._buffer):
            rest = self._buffer[self._pos :]
            while len(rest) < num_bytes:
                rest += self._drbg.generate(OUTLEN)
            self._buffer, self._pos, end = rest, 0, num_bytes
        chunk = self._buffer[self._pos : end]
        self._pos = end
        self.bytes_read += num_bytes
        return chunk
