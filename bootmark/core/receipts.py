"""Receipts: one JSON file per run, validated, hashed, written atomically, never overwritten.

A receipt is ``{"kind", "schema_version", "provenance", "body", "content_sha256"}``.

* ``kind`` names its JSON Schema, ``bootmark/core/schemas/<kind>.schema.json``; provenance has
  its own schema (docs/receipts.md), shared by every kind.
* ``content_sha256`` is the SHA-256 of the canonical JSON (sorted keys, no whitespace,
  UTF-8) of everything else in the receipt, so a hand-edited figure is detected on load.
* :func:`write_receipt` writes a temporary file in the target folder, flushes and fsyncs
  it, then links it to a name that must not exist yet: a crash leaves either no receipt
  or a whole one, and an existing receipt is never replaced.
* :func:`load_receipt` refuses, with the path and the first failing field, a receipt
  that fails its schema or its hash, or that comes from a newer schema version.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterable
from importlib import resources

import jsonschema
from referencing import Registry, Resource

__all__ = [
    "KINDS",
    "SCHEMA_VERSION",
    "ReceiptError",
    "canonical_json",
    "content_hash",
    "load_receipt",
    "newest_receipt",
    "receipt_name",
    "scan",
    "seal",
    "validate",
    "write_receipt",
]

SCHEMA_VERSION = 1
KINDS = ("bench", "memory", "study", "truth", "process", "gate", "gatecheck", "gatesuites", "record", "panel")
# Study receipts hold thousands of per-series floats: one line each would triple their size.
COMPACT_KINDS = ("study",)


class ReceiptError(ValueError):
    """A receipt that cannot be written or trusted; the message names the file and field.

    A ``ValueError``. Raised by :func:`seal`, :func:`write_receipt`,
    :func:`load_receipt`, :func:`validate` and :func:`scan`.

    Examples
    --------
    >>> from bootmark.core.receipts import ReceiptError, validate
    >>> validate({"kind": "invoice"}, "note.json")
    Traceback (most recent call last):
        ...
    bootmark.core.receipts.ReceiptError: note.json: field 'kind' is 'invoice'; expected one of (...)
    """


def _schema_text(name):
    return resources.files("bootmark.core").joinpath("schemas", f"{name}.schema.json").read_text()


def _validator(kind):
    provenance = json.loads(_schema_text("provenance"))
    registry = (
        Registry()
        .with_resource(provenance["$id"], Resource.from_contents(provenance))
        .with_resource("provenance.schema.json", Resource.from_contents(provenance))
    )
    schema = json.loads(_schema_text(kind))
    return jsonschema.Draft202012Validator(schema, registry=registry)


def canonical_json(value: object) -> bytes:
    """The bytes hashed: sorted keys, no insignificant whitespace, UTF-8, no NaN.

    Parameters
    ----------
    value : object
        Any JSON-serializable value (dicts, lists, strings, numbers, booleans, None).

    Returns
    -------
    bytes
        Its canonical JSON, UTF-8 encoded.

    Raises
    ------
    ValueError
        ``value`` holds NaN or an infinity.
    TypeError
        ``value`` holds something JSON cannot represent.

    See Also
    --------
    content_hash : the SHA-256 of a receipt's canonical JSON.

    Examples
    --------
    >>> from bootmark.core.receipts import canonical_json
    >>> canonical_json({"b": [1, 2.5], "a": None})
    b'{"a":null,"b":[1,2.5]}'
    >>> canonical_json({"a": float("nan")})
    Traceback (most recent call last):
        ...
    ValueError: Out of range float values are not JSON compliant...
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def content_hash(receipt: dict) -> str:
    """SHA-256 (hex) of the receipt without its ``content_sha256`` field.

    Parameters
    ----------
    receipt : dict
        A receipt dict, sealed or not; its ``content_sha256`` key, if any, is ignored.

    Returns
    -------
    str
        64 hexadecimal digits: the SHA-256 of :func:`canonical_json` of the rest.

    Examples
    --------
    >>> from bootmark.core.receipts import content_hash
    >>> len(content_hash({"kind": "bench"}))
    64
    >>> content_hash({"kind": "bench"}) == content_hash({"kind": "bench", "content_sha256": "x"})
    True
    """
    return hashlib.sha256(canonical_json({k: v for k, v in receipt.items() if k != "content_sha256"})).hexdigest()


def _first_nonfinite(value, path="$"):
    if isinstance(value, float) and not math.isfinite(value):
        return path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _first_nonfinite(item, f"{path}.{key}" if isinstance(value, dict) else f"{path}[{key}]")
        if found:
            return found
    return None


def _check(receipt, where):
    kind = receipt.get("kind") if isinstance(receipt, dict) else None
    if kind not in KINDS:
        raise ReceiptError(f"{where}: field 'kind' is {kind!r}; expected one of {KINDS}")
    version = receipt.get("schema_version")
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise ReceiptError(
            f"{where}: schema_version {version} is newer than this bootmark understands "
            f"({SCHEMA_VERSION}); upgrade bootmark to read it"
        )
    errors = sorted(_validator(kind).iter_errors(receipt), key=lambda error: list(error.absolute_path))
    if errors:
        field = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in errors[0].absolute_path)
        raise ReceiptError(f"{where}: field {field} fails the {kind} schema: {errors[0].message}")


def seal(kind: str, provenance: dict, body: dict) -> dict:
    """A complete, validated receipt dict (hash included) for ``body``.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`: the schema the receipt must satisfy.
    provenance : dict
        The provenance block (:func:`bootmark.core.provenance.collect`).
    body : dict
        The kind's body.

    Returns
    -------
    dict
        ``{"kind", "schema_version", "provenance", "body", "content_sha256"}``.

    Raises
    ------
    ReceiptError
        A number in it is NaN or infinite, or it fails the kind's schema.

    See Also
    --------
    write_receipt : write the sealed receipt to disk.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> path = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> old = receipts.load_receipt(path)
    >>> receipts.seal("bench", old["provenance"], old["body"]) == old
    True
    """
    receipt = {"kind": kind, "schema_version": SCHEMA_VERSION, "provenance": provenance, "body": body}
    bad = _first_nonfinite(receipt)
    if bad:
        raise ReceiptError(f"refusing to seal a {kind} receipt: field {bad} is not a finite number")
    receipt["content_sha256"] = content_hash(receipt)
    _check(receipt, f"new {kind} receipt")
    return receipt


def receipt_name(receipt: dict, tag: str | None = None) -> str:
    """The file name of a receipt:
    ``<kind>[-<tag>]-<machine>-<UTC date and time>-<short SHA>[-dirty].json``.

    Parameters
    ----------
    receipt : dict
        A receipt dict (its kind and provenance are read).
    tag : str, optional
        A label put after the kind, e.g. a study's id.

    Returns
    -------
    str
        The name, without a folder.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> path = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> receipts.receipt_name(receipts.load_receipt(path), tag="quick")
    'bench-quick-amd-epyc-20261203T181926Z-f0d3e52745.json'
    """
    provenance = receipt["provenance"]
    machine = re.sub(r"[^A-Za-z0-9]+", "-", provenance["machine"]["cpu_model"]).strip("-").lower()[:24] or "machine"
    stamp = provenance["started_utc"].replace("-", "").replace(":", "")
    sha = (provenance["source"]["git_sha"] or "nogit")[:10]
    dirty = "-dirty" if provenance["source"]["dirty"] else ""
    label = receipt["kind"] + (f"-{re.sub(r'[^A-Za-z0-9]+', '-', tag).strip('-')}" if tag else "")
    return f"{label}-{machine}-{stamp}-{sha}{dirty}.json"


def write_receipt(receipt: dict, directory: str, tag: str | None = None) -> str:
    """Write a sealed receipt into ``directory`` atomically; return its path.

    ``tag`` (e.g. a study's id) goes into the file name after the kind. Never
    overwrites: if the name exists, a numeric suffix is added.

    Parameters
    ----------
    receipt : dict
        A receipt sealed by :func:`seal`.
    directory : str
        The folder to write into; created if missing.
    tag : str, optional
        A label for the file name (:func:`receipt_name`).

    Returns
    -------
    str
        The path of the new file.

    Raises
    ------
    ReceiptError
        The receipt fails its schema or its hash, the folder's filesystem cannot
        hard-link, or 1000 receipts of that name exist already.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> path = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> import tempfile
    >>> receipt = receipts.load_receipt(path)
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     first = receipts.write_receipt(receipt, scratch)
    ...     second = receipts.write_receipt(receipt, scratch)
    ...     print(os.path.basename(first))
    ...     print(os.path.basename(second))
    ...     print(receipts.load_receipt(second) == receipt)
    bench-amd-epyc-20261203T181926Z-f0d3e52745.json
    bench-amd-epyc-20261203T181926Z-f0d3e52745-1.json
    True
    """
    os.makedirs(directory, exist_ok=True)
    _check(receipt, "receipt to write")
    if content_hash(receipt) != receipt["content_sha256"]:
        raise ReceiptError("receipt to write: content_sha256 does not match its content; seal() it again")
    indent = None if receipt["kind"] in COMPACT_KINDS else 1
    text = json.dumps(receipt, indent=indent, sort_keys=True, allow_nan=False) + "\n"
    stem = receipt_name(receipt, tag)[: -len(".json")]
    handle, temporary = tempfile.mkstemp(prefix=".partial-", suffix=".json", dir=directory)
    try:
        os.fchmod(handle, 0o644)  # a committed receipt is for everyone to read
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        for attempt in range(1000):
            path = os.path.join(directory, f"{stem}{'' if attempt == 0 else f'-{attempt}'}.json")
            try:
                os.link(temporary, path)  # fails if the name exists: no receipt is ever replaced
            except FileExistsError:
                continue
            except OSError as error:
                raise ReceiptError(
                    f"{directory}: cannot link a receipt into place ({error.strerror}); "
                    "write receipts to a local filesystem that supports hard links"
                ) from None
            _sync_directory(directory)
            return path
        raise ReceiptError(f"{directory}: 1000 receipts named {stem}*.json already exist")
    finally:
        os.unlink(temporary)


def _sync_directory(directory):
    # The new name must survive a power loss as well as the content.
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def load_receipt(path: str) -> dict:
    """Read, validate and hash-check a receipt; return it as a dict.

    Parameters
    ----------
    path : str
        A receipt file.

    Returns
    -------
    dict
        The receipt, as ``json.load`` gives it.

    Raises
    ------
    ReceiptError
        The file cannot be read, is not JSON, holds NaN or Infinity, fails its schema or
        its hash, or comes from a newer schema version.

    See Also
    --------
    bootmark.core.records.load : the same, as a typed record.
    validate : the checks on a dict.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> path = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> receipt = receipts.load_receipt(path)
    >>> receipt["kind"], receipt["body"]["profile"], len(receipt["content_sha256"])
    ('bench', 'quick', 64)
    """

    def refuse_constant(name):
        raise ReceiptError(f"{path}: holds {name}, which no receipt may contain")

    try:
        with open(path, encoding="utf-8") as stream:
            receipt = json.load(stream, parse_constant=refuse_constant)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ReceiptError(f"{path}: not a JSON receipt ({error})") from None
    except OSError as error:
        raise ReceiptError(f"{path}: cannot be read ({error.strerror or error})") from None
    return validate(receipt, path)


def validate(receipt: dict, where: str = "receipt") -> dict:
    """Check a receipt dict against its kind's schema and its content hash; return it.

    Parameters
    ----------
    receipt : dict
        A receipt dict.
    where : str, optional
        What the error message calls it (a path, say).

    Returns
    -------
    dict
        ``receipt`` itself.

    Raises
    ------
    ReceiptError
        Naming ``where`` and the first field at fault: an unknown kind, a newer schema
        version, a schema failure, or a hash that does not match the content.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> path = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> receipt = receipts.load_receipt(path)
    >>> receipt["body"]["samples"] += 1
    >>> receipts.validate(receipt, "edited.json")
    Traceback (most recent call last):
        ...
    bootmark.core.receipts.ReceiptError: edited.json: field $.content_sha256 does not match the content: ...
    """
    _check(receipt, where)
    if content_hash(receipt) != receipt["content_sha256"]:
        raise ReceiptError(
            f"{where}: field $.content_sha256 does not match the content: the receipt was edited after it was written"
        )
    return receipt


def scan(directory: str, kinds: Iterable[str]) -> list[tuple[tuple[str, int, str], str, dict]]:
    """[(order key, path, receipt)] of every receipt of ``kinds`` in ``directory``, each
    loaded and checked once; the newest has the largest key (start time, then write
    order, then name). A broken receipt is refused by name, never skipped quietly.

    Parameters
    ----------
    directory : str
        The folder to scan (not its subfolders); a missing folder holds no receipt.
    kinds : iterable of str
        The receipt kinds wanted (file names start ``<kind>-``).

    Returns
    -------
    list of tuple
        ``((started_utc, write order, name), path, receipt)``, in file-name order.

    Raises
    ------
    ReceiptError
        A receipt of those kinds in the folder cannot be loaded (:func:`load_receipt`).

    Examples
    --------
    >>> import os
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> path = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> found = receipts.scan(folder, ("bench",))
    >>> all(receipt["kind"] == "bench" for _, _, receipt in found)
    True
    """
    found = []
    if not os.path.isdir(directory):
        return found
    for name in sorted(os.listdir(directory)):
        if name.endswith(".json") and any(name.startswith(f"{kind}-") for kind in kinds):
            path = os.path.join(directory, name)
            receipt = load_receipt(path)
            if receipt["kind"] in kinds:
                found.append(((receipt["provenance"]["started_utc"], _write_order(name), name), path, receipt))
    return found


def newest_receipt(directory: str, kind: str, predicate: Callable[[dict], bool] = lambda receipt: True) -> str | None:
    """Path of the newest valid receipt of ``kind`` in ``directory`` that satisfies
    ``predicate`` (by start time, then name), or None.

    Parameters
    ----------
    directory : str
        The folder to search (:func:`scan`).
    kind : str
        The receipt kind.
    predicate : callable, optional
        Takes a receipt dict; only receipts for which it is true count (default: all).

    Returns
    -------
    str or None
        The newest matching receipt's path, or None when there is none.

    Raises
    ------
    ReceiptError
        A receipt of that kind in the folder cannot be loaded.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> path = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> print(receipts.newest_receipt(folder, "bench", lambda receipt: receipt["body"]["profile"] == "none"))
    None
    >>> os.path.basename(receipts.newest_receipt(folder, "bench")).startswith("bench-")
    True
    """
    found = [(key, path) for key, path, receipt in scan(directory, (kind,)) if predicate(receipt)]
    return max(found)[1] if found else None


def _write_order(name):
    """0 for the first receipt written under a name, k for the one ``write_receipt`` had
    to call "<name>-k.json" because the name was taken."""
    match = re.search(r"-(?:[0-9a-f]{10}|nogit)(?:-dirty)?-(\d+)\.json$", name)
    return int(match.group(1)) if match else 0
