"""MurmurHash64A (Austin Appleby's 64-bit hash for 64-bit platforms), as spaCy uses it
to turn strings into keys: key = MurmurHash64A(utf8 bytes, seed=1)."""

MASK = (1 << 64) - 1
M = 0xC6A4A7935BD1E995
R = 47


def murmurhash64a(data: bytes, seed: int = 1) -> int:
    length = len(data)
    h = (seed ^ (length * M)) & MASK
    blocks = length // 8
    for i in range(blocks):
        k = int.from_bytes(data[8 * i:8 * i + 8], "little")
        k = (k * M) & MASK
        k ^= k >> R
        k = (k * M) & MASK
        h ^= k
        h = (h * M) & MASK
    tail = data[8 * blocks:]
    if tail:
        for i in range(len(tail) - 1, -1, -1):
            h ^= tail[i] << (8 * i)
        h = (h * M) & MASK
    h ^= h >> R
    h = (h * M) & MASK
    h ^= h >> R
    return h


def spacy_key(text: str) -> int:
    return murmurhash64a(text.encode("utf-8"), 1)
