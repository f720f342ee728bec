"""Write tests/goldens/stream_v<STREAM_VERSION>.json: the first draws of every method.

Run only when STREAM_VERSION was bumped: an existing golden file is never overwritten,
because it is the record of what that stream version produced.

    .venv/bin/python scripts/make_goldens.py
"""

import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import reference  # noqa: E402
from reference.draws import Purpose, WordStream  # noqa: E402
from reference.indices import STREAM_VERSION, index_rows  # noqa: E402
from reference.keys import replicate_key, root_key  # noqa: E402

SEEDS = [0, 42, 2**100 + 3]
N = 17
ROWS = 3
METHODS = {
    "IID()": reference.IID(),
    "MovingBlock(4)": reference.MovingBlock(4),
    "CircularBlock(4)": reference.CircularBlock(4),
    "NonOverlappingBlock(4)": reference.NonOverlappingBlock(4),
    "StationaryBlock(4)": reference.StationaryBlock(4),
    "StationaryBlock(2)": reference.StationaryBlock(2),
    "TaperedBlock(4)": reference.TaperedBlock(4),
}


def golden():
    """The golden record of the current stream version."""
    record = {"stream_version": STREAM_VERSION, "n": N, "seeds": {}}
    for seed in SEEDS:
        root = root_key(seed)
        key = replicate_key(root, 0)
        record["seeds"][str(seed)] = {
            "root_key": [hex(root[0]), hex(root[1])],
            "replicate_keys": [[hex(w) for w in replicate_key(root, b)] for b in range(3)],
            "words": {purpose.name: [hex(w) for w in _words(key, purpose, 8)] for purpose in Purpose},
            "rows": {name: list(index_rows(method, N, seed, ROWS)) for name, method in METHODS.items()},
        }
    return record


def _words(key, purpose, count):
    stream = WordStream(key, purpose)
    return [stream.word() for _ in range(count)]


def golden_path():
    return ROOT / "tests" / "goldens" / f"stream_v{STREAM_VERSION}.json"


def main():
    path = golden_path()
    if path.exists():
        sys.exit(f"{path} exists; golden files are never overwritten. Bump STREAM_VERSION "
                 "in reference/indices.py if the stream changed.")
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(golden(), indent=1) + "\n")
    os.replace(temporary, path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
