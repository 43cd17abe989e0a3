"""Reads a Sudachi system dictionary (system.dic) directly.

The byte layout follows the public SudachiDict binary format (as read by sudachi.rs, Apache-2.0):
header (version u64, created u64, description[256]), grammar (POS list of UTF-16 strings, then
left/right id counts and an int16 connection matrix indexed [right_id_of_next * n_left + left... ]),
lexicon (double-array trie, word-id table, word params (left_id, right_id, cost) int16 x3,
word-info offsets u32 and records).

sudachipy 0.6 has no API that lists all entries with their costs, so the tools read the file.
"""
import struct

import numpy as np

SYSTEM_V1 = 0x7366D3F18BD111E7
SYSTEM_V2 = 0xCE9F011A92394434


def _string(buf, off):
    n = buf[off]
    off += 1
    if n >= 128:
        n = ((n & 0x7F) << 8) | buf[off]
        off += 1
    s = buf[off:off + 2 * n].decode("utf-16-le") if n else ""
    return s, off + 2 * n


class SystemDic:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.buf = buf = f.read()
        version, = struct.unpack_from("<Q", buf, 0)
        if version not in (SYSTEM_V1, SYSTEM_V2):
            raise ValueError(f"{path}: not a Sudachi system dictionary (version {version:#x})")
        self.has_synonyms = version == SYSTEM_V2
        off = 272
        npos, = struct.unpack_from("<H", buf, off)
        off += 2
        self.pos = []
        for _ in range(npos):
            parts = []
            for _ in range(6):
                s, off = _string(buf, off)
                parts.append(s)
            self.pos.append(tuple(parts))
        self.n_left, self.n_right = struct.unpack_from("<hh", buf, off)
        off += 4
        # cost(prev.right_id, next.left_id) = matrix[next.left_id * n_left + prev.right_id]
        # (sudachi.rs: index = right * num_left + left, where left = right_id of the left node).
        self.matrix = np.frombuffer(buf, dtype="<i2", count=self.n_left * self.n_right, offset=off).reshape(
            self.n_right, self.n_left)
        off += 2 * self.n_left * self.n_right
        trie_size, = struct.unpack_from("<I", buf, off)
        off += 4 + 4 * trie_size
        wid_size, = struct.unpack_from("<I", buf, off)
        off += 4 + wid_size
        self.n_words, = struct.unpack_from("<I", buf, off)
        off += 4
        self.params = np.frombuffer(buf, dtype="<i2", count=3 * self.n_words, offset=off).reshape(self.n_words, 3)
        off += 6 * self.n_words
        self.info_offsets = np.frombuffer(buf, dtype="<u4", count=self.n_words, offset=off)

    def connect(self, prev_right, next_left):
        return int(self.matrix[next_left, prev_right])

    def word_info(self, wid):
        """(surface, pos_id, normalized_form, synonym_group_ids) of one entry."""
        buf = self.buf
        off = int(self.info_offsets[wid])
        surface, off = _string(buf, off)
        n = buf[off]
        off += 2 if n >= 128 else 1  # head word length
        pos_id, = struct.unpack_from("<H", buf, off)
        off += 2
        norm, off = _string(buf, off)
        off += 4  # dictionary form word id
        _, off = _string(buf, off)  # reading
        for _ in range(3):  # A split, B split, word structure
            off += 1 + 4 * buf[off]
        syn = ()
        if self.has_synonyms:
            k = buf[off]
            syn = struct.unpack_from(f"<{k}I", buf, off + 1)
        return surface, pos_id, norm or surface, syn
