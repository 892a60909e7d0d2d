"""The V2 binary tensor data extension, written from the spec (not from either server), so
that raw-HTTP cases can build requests and read responses byte by byte.

Request/response body: a JSON object, then the raw tensors concatenated in the order of the
inputs/outputs that carry `parameters.binary_data_size`. The JSON length travels in the
`Inference-Header-Content-Length` header. Raw tensors are little-endian and row-major; BOOL
is one byte; each BYTES element is a 4-byte little-endian length followed by its bytes.
"""

from __future__ import annotations

import json
import struct
from typing import Dict, List, Optional, Tuple

import numpy as np

HEADER = "inference-header-content-length"

NUMPY: Dict[str, object] = {
    "BOOL": np.bool_,
    "UINT8": np.uint8,
    "UINT16": np.uint16,
    "UINT32": np.uint32,
    "UINT64": np.uint64,
    "INT8": np.int8,
    "INT16": np.int16,
    "INT32": np.int32,
    "INT64": np.int64,
    "FP16": np.float16,
    "FP32": np.float32,
    "FP64": np.float64,
    "BYTES": np.object_,
}


def to_raw(datatype: str, values) -> bytes:
    if datatype == "BYTES":
        out = []
        for v in np.asarray(values, dtype=object).flatten():
            b = v if isinstance(v, bytes) else str(v).encode("utf-8")
            out.append(struct.pack("<I", len(b)) + b)
        return b"".join(out)
    return np.asarray(values, dtype=NUMPY[datatype]).astype(
        np.dtype(NUMPY[datatype]).newbyteorder("<")
    ).tobytes()


def from_raw(datatype: str, raw: bytes) -> list:
    """Flat list of the raw tensor's elements (BYTES elements as bytes)."""
    if datatype == "BYTES":
        items, i = [], 0
        while i < len(raw):
            (n,) = struct.unpack_from("<I", raw, i)
            items.append(raw[i + 4 : i + 4 + n])
            i += 4 + n
        return items
    return np.frombuffer(raw, dtype=np.dtype(NUMPY[datatype]).newbyteorder("<")).tolist()


def binary_request(
    inputs: List[Dict],
    outputs: Optional[List[Dict]] = None,
    parameters: Optional[Dict] = None,
    request_id: Optional[str] = None,
) -> Tuple[bytes, Dict[str, str]]:
    """Each input: {name, datatype, shape, values[, json: True to send it as JSON data]}.
    Returns the body and the headers that go with it."""
    header: Dict = {}
    if request_id is not None:
        header["id"] = request_id
    if parameters is not None:
        header["parameters"] = parameters
    header["inputs"] = []
    tail = []
    for spec in inputs:
        entry = {"name": spec["name"], "shape": spec["shape"], "datatype": spec["datatype"]}
        if spec.get("json"):
            entry["data"] = spec["values"]
        else:
            raw = to_raw(spec["datatype"], spec["values"])
            entry["parameters"] = {"binary_data_size": len(raw)}
            tail.append(raw)
        header["inputs"].append(entry)
    if outputs is not None:
        header["outputs"] = outputs
    head = json.dumps(header, separators=(",", ":")).encode()
    return head + b"".join(tail), {
        HEADER: str(len(head)),
        "content-type": "application/octet-stream",
    }


def split_response(content: bytes, headers) -> Tuple[object, Dict[str, bytes]]:
    """(parsed JSON part, {output name: raw bytes}) of a V2 response, binary or not."""
    length = headers.get(HEADER)
    if length is None:
        return json.loads(content), {}
    length = int(length)
    body = json.loads(content[:length])
    raw: Dict[str, bytes] = {}
    offset = length
    for out in body.get("outputs", []):
        size = (out.get("parameters") or {}).get("binary_data_size")
        if size is not None:
            raw[out["name"]] = content[offset : offset + size]
            offset += size
    if offset != len(content):
        raise ValueError(f"binary response has {len(content) - offset} trailing bytes")
    return body, raw
