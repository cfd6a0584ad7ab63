"""Seeds at rest: AES-256-GCM under the dealer key, bound to the shuffle id.

Stored form (the `encrypted_seed` of ShuffleCreated):

    0x01 || nonce (12 random bytes) || AES-256-GCM(key, nonce, seed, aad) (seed + 16-byte tag)
    aad = "croupier/dealer/v1/seed:" || shuffle id (UTF-8)

The associated data ties a ciphertext to its shuffle, so copying one shuffle's encrypted seed
into another stream does not decrypt. `key_id` (first 8 bytes of SHA-256 of the key, hex)
names the key without revealing it, so a dealer started with the wrong key says so.
"""

from __future__ import annotations

import hashlib
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from services.dealer.seeds import SecretBytes
from services.shared.errors import FailedPrecondition

FORMAT = b"\x01"
NONCE_BYTES = 12
KEY_BYTES = 32
AAD_PREFIX = b"croupier/dealer/v1/seed:"


class SeedCipher:
    """Encrypts and decrypts server seeds with one dealer key (never printed)."""

    def __init__(self, key: bytes) -> None:
        if len(key) != KEY_BYTES:
            raise ValueError(f"the dealer key must be {KEY_BYTES} bytes, got {len(key)}")
        self._aead = AESGCM(key)
        self.key_id = hashlib.sha256(key).digest()[:8].hex()

    def __repr__(self) -> str:
        return f"SeedCipher(key_id={self.key_id})"

    def encrypt(self, seed: bytes, shuffle_id: str) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        return FORMAT + nonce + self._aead.encrypt(nonce, seed, AAD_PREFIX + shuffle_id.encode())

    def decrypt(self, blob: bytes, shuffle_id: str, key_id: str) -> SecretBytes:
        if key_id != self.key_id:
            raise FailedPrecondition(
                f"shuffle {shuffle_id} was sealed with dealer key {key_id}, but this dealer "
                f"runs with key {self.key_id}; start it with the original CROUPIER_DEALER_KEY"
            )
        if blob[:1] != FORMAT or len(blob) < 1 + NONCE_BYTES + 16:
            raise FailedPrecondition(f"shuffle {shuffle_id}: stored seed has an unknown format")
        nonce, ciphertext = blob[1 : 1 + NONCE_BYTES], blob[1 + NONCE_BYTES :]
        try:
            return SecretBytes(
                self._aead.decrypt(nonce, ciphertext, AAD_PREFIX + shuffle_id.encode())
            )
        except InvalidTag as exc:
            raise FailedPrecondition(
                f"shuffle {shuffle_id}: stored seed fails authentication (tampered or moved)"
            ) from exc
