"""Compares one corpus case's answers from the anchor and from kserve-ts.

Only what the protocol leaves free is normalised away:
- generated response ids (a request's own id must be echoed by both);
- the server's name and version in `GET /v2`;
- `model_version`: null or a version label;
- floating-point values within 1e-6 (relative, or absolute near zero);
- error message text: both bodies must be `{"error": <string>}`, the strings may differ.

Everything else is a difference with an aspect name that known_differences.py can list:
"status", "body", "key-order", "content-type", "binary-framing".
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import requests

import v2wire
from corpus import Case

FLOAT_TOLERANCE = 1e-6


@dataclass
class Answer:
    status: int
    headers: Dict[str, str]
    content: bytes

    @classmethod
    def of(cls, response: requests.Response) -> "Answer":
        return cls(response.status_code, {k.lower(): v for k, v in response.headers.items()},
                   response.content)

    def summary(self, limit: int = 400) -> str:
        text = self.content[:limit].decode("utf-8", errors="replace")
        more = "" if len(self.content) <= limit else f"... ({len(self.content)} bytes)"
        ctype = self.headers.get("content-type", "-")
        framing = self.headers.get(v2wire.HEADER)
        extra = f", {v2wire.HEADER}: {framing}" if framing else ""
        return f"{self.status} [content-type: {ctype}{extra}] {text}{more}"


@dataclass
class Difference:
    aspect: str
    detail: str


def send(base_url: str, case: Case, timeout: float = 30) -> Answer:
    response = requests.request(case.method, base_url + case.path, data=case.body,
                                headers=case.headers, timeout=timeout)
    return Answer.of(response)


def _media_type(headers: Dict[str, str]) -> Optional[str]:
    value = headers.get("content-type")
    return None if value is None else value.split(";")[0].strip().lower()


def _decode(answer: Answer) -> Tuple[Any, Dict[str, bytes], Optional[str]]:
    """(parsed JSON, raw binary outputs, error) for a V2/V1 answer."""
    try:
        body, raw = v2wire.split_response(answer.content, answer.headers)
        return body, raw, None
    except (ValueError, UnicodeDecodeError) as e:
        return None, {}, f"not JSON or bad binary framing: {e}"


def _normalise(case: Case, path: str, value: Any) -> Any:
    """Replaces what the protocol leaves free by placeholders, recursively."""
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            here = f"{path}.{key}"
            if here == ".id" and case.request_id is None and isinstance(v, str) and v:
                v = "<generated id>"
            elif here == ".model_version" and (v is None or isinstance(v, str)):
                v = "<model version>"
            elif case.id == "server/metadata" and here in (".name", ".version") and isinstance(v, str):
                v = f"<server {key}>"
            out[key] = _normalise(case, here, v)
        return out
    if isinstance(value, list):
        return [_normalise(case, f"{path}[]", v) for v in value]
    return value


def _same_scalar(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= FLOAT_TOLERANCE * max(1.0, abs(a), abs(b))
    return type(a) is type(b) and a == b


def _diff_values(path: str, a: Any, b: Any, out: List[Difference]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b) and set(a) == set(b):
            out.append(Difference("key-order", f"{path or '.'}: anchor {list(a)} vs ours {list(b)}"))
        for key in a:
            if key not in b:
                out.append(Difference("body", f"{path}.{key}: only the anchor has it ({json.dumps(a[key])[:120]})"))
        for key in b:
            if key not in a:
                out.append(Difference("body", f"{path}.{key}: only ours has it ({json.dumps(b[key])[:120]})"))
        for key in a:
            if key in b:
                _diff_values(f"{path}.{key}", a[key], b[key], out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(Difference("body", f"{path}: {len(a)} items vs {len(b)}: anchor {json.dumps(a)[:160]} vs ours {json.dumps(b)[:160]}"))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            _diff_values(f"{path}[{i}]", x, y, out)
        return
    if not _same_scalar(a, b):
        out.append(Difference("body", f"{path or '.'}: anchor {json.dumps(a)[:160]} vs ours {json.dumps(b)[:160]}"))


def _raw_outputs(body: Any, raw: Dict[str, bytes]) -> Dict[str, list]:
    """Binary outputs decoded to flat lists, so that they compare like JSON data."""
    decoded = {}
    for out in body.get("outputs", []) if isinstance(body, dict) else []:
        if out.get("name") in raw:
            items = v2wire.from_raw(out["datatype"], raw[out["name"]])
            decoded[out["name"]] = [i.hex() if isinstance(i, bytes) else i for i in items]
    return decoded


def differences(case: Case, anchor: Answer, ours: Answer) -> List[Difference]:
    diffs: List[Difference] = []
    if anchor.status != ours.status:
        diffs.append(Difference("status", f"anchor {anchor.status} vs ours {ours.status}"))
    if case.compare == "status":
        return diffs

    a_type, o_type = _media_type(anchor.headers), _media_type(ours.headers)
    if a_type != o_type:
        diffs.append(Difference("content-type", f"anchor {a_type} vs ours {o_type}"))
    a_framed, o_framed = v2wire.HEADER in anchor.headers, v2wire.HEADER in ours.headers
    if a_framed != o_framed:
        diffs.append(Difference("binary-framing", f"{v2wire.HEADER}: anchor {'set' if a_framed else 'absent'} vs ours {'set' if o_framed else 'absent'}"))

    a_body, a_raw, a_err = _decode(anchor)
    o_body, o_raw, o_err = _decode(ours)
    if a_err or o_err:
        if a_err and o_err:
            if anchor.content != ours.content:
                diffs.append(Difference("body", "neither body is JSON and they differ"))
        else:
            diffs.append(Difference("body", f"anchor: {a_err or 'JSON'}; ours: {o_err or 'JSON'}"))
        return diffs

    if anchor.status >= 400 or ours.status >= 400:
        a_shape = _error_shape(a_body)
        o_shape = _error_shape(o_body)
        if a_shape != o_shape:
            diffs.append(Difference("body", f"error body shape: anchor {a_shape} vs ours {o_shape}"))
        elif a_shape != '{"error": <string>}':
            _diff_values("", a_body, o_body, diffs)
        return diffs

    _diff_values("", _normalise(case, "", a_body), _normalise(case, "", o_body), diffs)
    a_bin, o_bin = _raw_outputs(a_body, a_raw), _raw_outputs(o_body, o_raw)
    if set(a_bin) != set(o_bin):
        diffs.append(Difference("binary-framing", f"binary outputs: anchor {sorted(a_bin)} vs ours {sorted(o_bin)}"))
    for name in a_bin:
        if name in o_bin:
            _diff_values(f"<binary {name}>", a_bin[name], o_bin[name], diffs)
    return diffs


def _error_shape(body: Any) -> str:
    if isinstance(body, dict) and list(body) == ["error"] and isinstance(body["error"], str):
        return '{"error": <string>}'
    if isinstance(body, dict):
        return "{" + ", ".join(f'"{k}": {type(v).__name__}' for k, v in body.items()) + "}"
    return type(body).__name__
