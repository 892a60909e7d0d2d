"""Every known difference between kserve-ts and the anchor (KServe's Python server, 0.21;
the same list held on 0.20).

This is the one reviewed list: the differential test (test_differential.py) fails on any
difference that no entry here explains, and on any entry that no longer explains a
difference (so a fix in kserve-ts must remove its entry). The ported anchor tests look their
exceptions up here by key too.

Each entry names the corpus case ids it covers (shell-style patterns over corpus.Case.id),
the aspects that differ (see compare.py: "status", "body", "key-order", "content-type",
"binary-framing"), what each server answers, and why. Differences that only a client test
can see (gRPC, client libraries) name those tests instead; such a test asserts the known
behaviour, or is marked with `xfail(key)` (strict: it fails once the difference is gone).
`documented` says whether docs/compatibility.md already lists it; the undocumented ones are
open: kserve-ts is to be fixed, or the difference added to docs/compatibility.md.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Tuple

import pytest


@dataclass(frozen=True)
class Known:
    key: str
    cases: Tuple[str, ...]
    aspects: FrozenSet[str]
    anchor: str
    ours: str
    reason: str
    documented: bool
    suggestion: str = ""
    tests: Tuple[str, ...] = ()

    def covers(self, case_id: str, aspect: Optional[str] = None) -> bool:
        if aspect is not None and aspect not in self.aspects:
            return False
        return any(fnmatch.fnmatchcase(case_id, p) for p in self.cases)


def _k(key, cases, aspects, anchor, ours, reason, documented, suggestion="", tests=()):
    return Known(key, tuple(cases), frozenset(aspects), anchor, ours, reason, documented,
                 suggestion, tuple(tests))


BINARY_RESPONSE_CASES = (
    "v2/*/json-in-binary-out",
    "v2/*/binary-in-binary-out",
    "v2/*/binary-beyond-2^53",
    "v2/add_sub/mixed-binary-outputs",
    "v2/add_sub/binary-and-json-inputs",
    "v2/add_sub/binary-one-output",
    "v2/iris/requested-probabilities-binary",
)

KNOWN = [
    # ---- listed in docs/compatibility.md ----
    _k("v2-extensions",
       ["server/metadata"], {"body"},
       'GET /v2 extensions ["model_repository_extension"]',
       'adds "binary_tensor_data", "model_configuration" and "statistics"',
       "The binary extension and Triton's model configuration and statistics extensions are implemented, "
       "so they are advertised (compatibility.md: /v2 extensions).",
       documented=True),
    _k("binary-response-content-type",
       BINARY_RESPONSE_CASES, {"content-type"},
       "binary (JSON + raw tensors) responses carry no content-type",
       "content-type: application/octet-stream",
       "The body is not JSON; clients split it by inference-header-content-length either way "
       "(compatibility.md: binary responses).",
       documented=True),
    _k("invalid-v2-body-422",
       ["invalid/v2/malformed-json", "invalid/v2/empty-body", "invalid/v2/json-array-body",
        "invalid/v2/missing-inputs", "invalid/v2/inputs-not-a-list", "invalid/v2/input-missing-data",
        "invalid/v2/input-missing-datatype", "invalid/v2/shape-not-a-list",
        "invalid/v2/nested-parameter", "invalid/v2/unknown-model-malformed-json"],
       {"status", "body"},
       '422 {"detail": [...]} from FastAPI request validation',
       '400 {"error": "..."} naming the field',
       "One error shape; 400 is what the protocol means (compatibility.md: invalid V2 body).",
       documented=True),
    _k("unknown-route",
       ["invalid/route/unknown-path", "edge/route/docs-disabled"], {"body"},
       '404 {"detail": "Not Found"}',
       '404 {"error": "Route GET:/x not found"}',
       "One error shape (compatibility.md: unknown route).",
       documented=True),
    _k("method-not-allowed-body",
       ["invalid/route/infer-with-get"], {"body"},
       '405 {"detail": "Method Not Allowed"} (FastAPI default)',
       '405 {"error": "Method GET is not allowed for ...; allowed: POST"} with an Allow header',
       "One error shape for every error (compatibility.md: known path, wrong method).",
       documented=True),
    _k("model-versions",
       ["invalid/route/version-metadata", "invalid/route/version-ready", "invalid/route/version-infer"],
       {"status"},
       '501 {"error": "Model versioning not supported yet."}',
       "real versions; 404 for a version an unversioned model does not have",
       "Versioning is a standard Triton/OIP feature (compatibility.md: /versions/{v} routes).",
       documented=True),
    _k("load-unknown-model",
       ["repository/load-unknown"], {"status"},
       '503 {"error": "Model with name X is not ready."}',
       '404 {"error": "Model with name X does not exist."}',
       "The model does not exist (compatibility.md: load of a name the repository does not have).",
       documented=True),
    _k("repository-index",
       ["edge/route/repository-index"], {"status", "body"},
       '404 {"detail": "Not Found"} (no such route)',
       "200, Triton's index: [{name, state[, reason]}]",
       "Failed models are reported with their cause (compatibility.md: model listing).",
       documented=True),
    _k("json-int64-beyond-2^53",
       ["invalid/v2/int64-json-2^53", "invalid/v2/uint64-json-beyond-2^53"], {"status", "body"},
       "200, exact (Python ints)",
       "400 'JSON numbers beyond 2^53 lose precision, send ... with the binary data extension'",
       "JavaScript numbers are doubles; refusing beats rounding silently (compatibility.md: "
       "64-bit integers in JSON requests).",
       documented=True),
    _k("duplicate-requested-output",
       ["edge/v2/duplicate-requested-output"], {"status", "body"},
       "200 with the output twice",
       "400 'output 'OUTPUT0' is requested more than once'",
       "Output names are unique within a response (compatibility.md: duplicate requested outputs).",
       documented=True),
    _k("json-bool-values",
       ["invalid/v2/bool-as-other-truthy-values"], {"status", "body"},
       "200: any truthy JSON value is true (numpy bool conversion)",
       "400: BOOL data is true/false/0/1 only",
       "compatibility.md: BOOL in JSON.",
       documented=True),
    _k("uneven-nested-data",
       ["invalid/v2/uneven-nesting-right-count"], {"status", "body"},
       "500 ValueError (numpy cannot build a ragged array)",
       "200: nested data is read in row-major order, only the element count is checked",
       "compatibility.md: nested data.",
       documented=True),

    # ---- also listed in docs/compatibility.md ----
    _k("metadata-platform",
       ["model/*/metadata"], {"body"},
       'platform ""', 'platform "onnxruntime_onnx"',
       "KServe's DataPlane hard-codes an empty platform; kserve-ts reports Triton's platform name.",
       documented=True,
       suggestion="list as intentional (Triton clients read it; the OIP says platform is the "
                  "framework/backend name)"),
    _k("client-data-errors-are-400",
       ["invalid/v2/element-count-mismatch", "invalid/v2/fp16-empty-json-data",
        "invalid/v2/strings-for-fp32", "invalid/v2/int8-out-of-range",
        "invalid/v1/strings-for-fp32", "invalid/v1/ragged-instances",
        "invalid/binary/header-length-not-a-number", "invalid/binary/truncated-tensor",
        "invalid/binary/size-not-multiple-of-element", "invalid/binary/bytes-element-overruns",
        "invalid/binary/bytes-not-utf8-*"],
       {"status"},
       "500: numpy/struct errors while decoding (ValueError : cannot reshape..., could not "
       "convert string to float, Python integer 300 out of bounds for int8, invalid literal "
       "for int(), buffer size must be a multiple of element size, unpack_from requires...), "
       "InferenceError for non-UTF-8 BYTES",
       "400 naming the input and the problem",
       "These are client errors; compatibility.md lists only the element-count case.",
       documented=True,
       suggestion="list as intentional: widen the compatibility.md row 'element count vs shape' "
                  "to every malformed tensor (values out of range or of the wrong JSON type, "
                  "ragged V1 instances, bad header length, truncated or misaligned binary data, "
                  "non-UTF-8 BYTES)"),
    _k("non-json-content-type",
       ["invalid/v2/json-as-text-plain", "invalid/v2/json-without-content-type"], {"status", "body"},
       "400 'received byte inputs, but the'inference-header-content-length' header is missing.' "
       "(any content-type but JSON makes the body raw bytes)",
       "200: a body without the binary header is parsed as JSON whatever its content-type",
       "Clients that send JSON without a JSON content-type still work: curl's default "
       "(form-urlencoded), and tritonclient.http, whose JSON-only requests (every input "
       "binary_data=False) the anchor refuses with this 400 (test_tritonclient_http.py).",
       documented=True,
       suggestion="list as intentional (more lenient; it makes tritonclient.http's JSON mode "
                  "work; no client relies on the 400)"),
    _k("unclaimed-binary-bytes",
       ["invalid/binary/extra-trailing-bytes"], {"status", "body"},
       "200: bytes after the last binary_data_size are ignored",
       "400 'request has 4 bytes of binary data not claimed by any input's binary_data_size'",
       "A framing error is reported instead of guessed around.",
       documented=True,
       suggestion="list as intentional"),

    # ---- seen by client tests only ----
    _k("grpc-repository-rpcs",
       [], set(),
       "RepositoryModelLoad/Unload do their work, then answer INTERNAL 'Internal server "
       "error' (the servicer indexes the None the extension returns); loading an unknown "
       "model answers UNKNOWN (AttributeError: 'ModelNotReady' object has no attribute 'reason')",
       "{model_name, isLoaded: true} / {model_name, isUnloaded: true}; NOT_FOUND for an unknown model",
       "The anchor's gRPC repository RPCs are broken (compatibility.md, gRPC table).",
       documented=True,
       tests=["test_kserve_clients.py::test_grpc_repository_rpcs"]),
]

BY_KEY: Dict[str, Known] = {k.key: k for k in KNOWN}
assert len(BY_KEY) == len(KNOWN), "duplicate keys in known_differences.KNOWN"


def explaining(case_id: str, aspect: str) -> Optional[Known]:
    for known in KNOWN:
        if known.covers(case_id, aspect):
            return known
    return None


def get(key: str) -> Known:
    """The entry a client or ported test relies on; a KeyError means the list lost it."""
    return BY_KEY[key]


def xfail(key: str, raises=None):
    """Marks a client test that shows the difference `key`: expected to fail, and strict,
    so that it fails the suite once kserve-ts no longer differs."""
    known = get(key)
    return pytest.mark.xfail(strict=True, raises=raises,
                             reason=f"known difference {key}: {known.reason}")
