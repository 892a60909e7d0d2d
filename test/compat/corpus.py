"""The differential corpus: raw HTTP requests sent unchanged to the anchor and to kserve-ts.

Generated cases cover every route x model x datatype x encoding (V1, V2 JSON, V2 binary in
and/or out, requested outputs); hand-written cases cover the error classes (malformed JSON,
wrong datatype or shape, unknown model/input/output, broken binary framing, ...). Case ids
are stable: known_differences.py refers to them.

Order matters only for the repository cases at the end (unload, then load again), which use
a model nothing else touches.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

import harness
import v2wire

JSON = {"content-type": "application/json"}


@dataclass(frozen=True)
class Case:
    id: str
    method: str
    path: str
    body: Optional[bytes] = None
    headers: Dict[str, str] = field(default_factory=dict)
    # "full": status, headers that matter and the normalised body are compared.
    # "status": only the status code (bodies differ by nature, e.g. /metrics).
    compare: str = "full"
    # The request's own id, echoed by both servers; None: ids are generated, compared as such.
    request_id: Optional[str] = None


def _json_case(id: str, path: str, payload, request_id=None, method="POST") -> Case:
    return Case(id, method, path, json.dumps(payload).encode(), dict(JSON), request_id=request_id)


# Two rows of three values per datatype: edge values that survive JSON exactly (integers
# within +-(2^53 - 1), floats exactly representable in the type), so that any difference is
# the server's.
VALUES: Dict[str, List] = {
    "BOOL": [[True, False, True], [False, False, True]],
    "UINT8": [[0, 1, 127], [128, 254, 255]],
    "UINT16": [[0, 1, 300], [32768, 65534, 65535]],
    "UINT32": [[0, 1, 65536], [2147483648, 4294967294, 4294967295]],
    "UINT64": [[0, 1, 4294967296], [2**52, 2**53 - 2, 2**53 - 1]],
    "INT8": [[-128, -1, 0], [1, 100, 127]],
    "INT16": [[-32768, -1, 0], [1, 1000, 32767]],
    "INT32": [[-2147483648, -1, 0], [1, 65536, 2147483647]],
    "INT64": [[-(2**53 - 1), -1, 0], [1, 2**32, 2**53 - 1]],
    "FP16": [[0.5, -1.25, 65504.0], [0.0009765625, 0.0, 3.140625]],
    "FP32": [[1.5, -2.25, 3.4028234663852886e38], [1.1754943508222875e-38, 0.0, 0.1]],
    "FP64": [[0.1, -1e300, 1e-300], [3.141592653589793, 0.0, 2.5]],
    "BYTES": [["a", "héllo", ""], ["日本語", "x y", "z"]],
}

# Values JSON cannot carry exactly (beyond 2^53), for the binary extension only.
BINARY_ONLY_VALUES: Dict[str, List] = {
    "UINT64": [[2**64 - 1, 2**63, 2**53 + 1]],
    "INT64": [[-(2**63), 2**63 - 1, -(2**53) - 1]],
}

MODEL_NAMES = list(harness.MODELS)


def identity_array(datatype: str) -> np.ndarray:
    """VALUES[datatype] as the numpy array a client would send (BYTES: object array of bytes)."""
    if datatype == "BYTES":
        return np.array([[v.encode() for v in row] for row in VALUES["BYTES"]], dtype=np.object_)
    return np.array(VALUES[datatype], dtype=v2wire.NUMPY[datatype])


def _flat(rows: List[List]) -> List:
    return [v for row in rows for v in row]


def server_routes() -> List[Case]:
    return [
        Case("server/live-v1", "GET", "/"),
        Case("server/metadata", "GET", "/v2"),
        Case("server/live", "GET", "/v2/health/live"),
        Case("server/ready", "GET", "/v2/health/ready"),
        Case("server/list-v1", "GET", "/v1/models"),
        Case("server/list-v2", "GET", "/v2/models"),
        Case("server/metrics", "GET", "/metrics", compare="status"),
    ]


def model_routes() -> List[Case]:
    cases = []
    for m in MODEL_NAMES:
        cases.append(Case(f"model/{m}/status-v1", "GET", f"/v1/models/{m}"))
        cases.append(Case(f"model/{m}/metadata", "GET", f"/v2/models/{m}"))
        cases.append(Case(f"model/{m}/ready", "GET", f"/v2/models/{m}/ready"))
    return cases


def identity_inference() -> List[Case]:
    cases = []
    for dt in harness.IDENTITY_DATATYPES:
        m = harness.identity_model(dt)
        infer = f"/v2/models/{m}/infer"
        rows = VALUES[dt]
        flat = _flat(rows)
        shape = [len(rows), len(rows[0])]
        tensor = {"name": "INPUT0", "shape": shape, "datatype": dt}

        # V2 JSON in, JSON out (FP16: both must refuse JSON data).
        cases.append(_json_case(f"v2/{m}/json", infer, {"inputs": [{**tensor, "data": flat}]}))
        cases.append(_json_case(f"v2/{m}/json-nested", infer, {"inputs": [{**tensor, "data": rows}]}))
        # With an id and request parameters of every JSON scalar kind.
        cases.append(_json_case(
            f"v2/{m}/json-id-parameters", infer,
            {"id": f"req-{m}", "parameters": {"s": "x", "i": 7, "b": True},
             "inputs": [{**tensor, "data": flat}]},
            request_id=f"req-{m}",
        ))
        # JSON in, the output requested as binary.
        cases.append(_json_case(
            f"v2/{m}/json-in-binary-out", infer,
            {"inputs": [{**tensor, "data": flat}],
             "outputs": [{"name": "OUTPUT0", "parameters": {"binary_data": True}}]},
        ))
        # Binary in, JSON out (FP16: JSON output must be refused).
        body, headers = v2wire.binary_request([{**tensor, "values": flat}])
        cases.append(Case(f"v2/{m}/binary-in-json-out", "POST", infer, body, headers))
        # Binary in, binary out for all outputs.
        body, headers = v2wire.binary_request(
            [{**tensor, "values": flat}], parameters={"binary_data_output": True}
        )
        cases.append(Case(f"v2/{m}/binary-in-binary-out", "POST", infer, body, headers))
        # binary_data_output=true overridden by the output's binary_data=false.
        body, headers = v2wire.binary_request(
            [{**tensor, "values": flat}],
            parameters={"binary_data_output": True},
            outputs=[{"name": "OUTPUT0", "parameters": {"binary_data": False}}],
        )
        cases.append(Case(f"v2/{m}/binary-precedence", "POST", infer, body, headers))
        if dt in BINARY_ONLY_VALUES:
            wide = BINARY_ONLY_VALUES[dt]
            body, headers = v2wire.binary_request(
                [{"name": "INPUT0", "shape": [1, 3], "datatype": dt, "values": _flat(wide)}],
                parameters={"binary_data_output": True},
            )
            cases.append(Case(f"v2/{m}/binary-beyond-2^53", "POST", infer, body, headers))
        # V1: instances stacked along the batch dimension.
        cases.append(_json_case(f"v1/{m}/predict", f"/v1/models/{m}:predict", {"instances": rows}))
    return cases


ADD_SUB_A = [float(i) for i in range(16)]
ADD_SUB_B = [0.5 * i for i in range(16)]


def multi_io_models() -> List[Case]:
    a = {"name": "INPUT0", "shape": [1, 16], "datatype": "FP32"}
    b = {"name": "INPUT1", "shape": [1, 16], "datatype": "FP32"}
    infer = "/v2/models/add_sub/infer"
    cases = [
        _json_case("v2/add_sub/json", infer,
                   {"inputs": [{**a, "data": ADD_SUB_A}, {**b, "data": ADD_SUB_B}]}),
        _json_case("v2/add_sub/inputs-reordered", infer,
                   {"inputs": [{**b, "data": ADD_SUB_B}, {**a, "data": ADD_SUB_A}]}),
        _json_case("v2/add_sub/requested-outputs-reordered", infer,
                   {"inputs": [{**a, "data": ADD_SUB_A}, {**b, "data": ADD_SUB_B}],
                    "outputs": [{"name": "OUTPUT1"}, {"name": "OUTPUT0"}]}),
        _json_case("v2/add_sub/requested-one-output", infer,
                   {"inputs": [{**a, "data": ADD_SUB_A}, {**b, "data": ADD_SUB_B}],
                    "outputs": [{"name": "OUTPUT1"}]}),
        _json_case("v2/add_sub/mixed-binary-outputs", infer,
                   {"inputs": [{**a, "data": ADD_SUB_A}, {**b, "data": ADD_SUB_B}],
                    "outputs": [{"name": "OUTPUT0", "parameters": {"binary_data": True}},
                                {"name": "OUTPUT1", "parameters": {"binary_data": False}}]}),
    ]
    body, headers = v2wire.binary_request(
        [{**a, "values": ADD_SUB_A}, {**b, "values": ADD_SUB_B, "json": True}],
        parameters={"binary_data_output": True},
    )
    cases.append(Case("v2/add_sub/binary-and-json-inputs", "POST", infer, body, headers))
    body, headers = v2wire.binary_request(
        [{**a, "values": ADD_SUB_A}, {**b, "values": ADD_SUB_B}],
        outputs=[{"name": "OUTPUT1", "parameters": {"binary_data": True}}],
    )
    cases.append(Case("v2/add_sub/binary-one-output", "POST", infer, body, headers))
    cases.append(_json_case("v1/add_sub/predict-rows", "/v1/models/add_sub:predict",
                            {"instances": [{"INPUT0": ADD_SUB_A, "INPUT1": ADD_SUB_B}]}))
    cases.append(_json_case("v1/add_sub/predict-columns", "/v1/models/add_sub:predict",
                            {"inputs": {"INPUT0": [ADD_SUB_A], "INPUT1": [ADD_SUB_B]}}))

    mlp_rows = [[((i * 7 + j) % 11 - 5) / 10 for j in range(64)] for i in range(2)]
    cases.append(_json_case("v2/mlp_64x8/json", "/v2/models/mlp_64x8/infer",
                            {"inputs": [{"name": "input", "shape": [2, 64], "datatype": "FP32",
                                         "data": _flat(mlp_rows)}]}))
    cases.append(_json_case("v1/mlp_64x8/predict", "/v1/models/mlp_64x8:predict",
                            {"instances": mlp_rows}))

    iris = [[6.8, 2.8, 4.8, 1.4], [5.1, 3.5, 1.4, 0.2]]
    iris_input = {"name": "input", "shape": [2, 4], "datatype": "FP32", "data": iris}
    cases += [
        _json_case("v2/iris/json", "/v2/models/iris/infer", {"inputs": [iris_input]}),
        _json_case("v2/iris/requested-label", "/v2/models/iris/infer",
                   {"inputs": [iris_input], "outputs": [{"name": "label"}]}),
        _json_case("v2/iris/requested-probabilities-binary", "/v2/models/iris/infer",
                   {"inputs": [iris_input],
                    "outputs": [{"name": "probabilities", "parameters": {"binary_data": True}}]}),
        _json_case("v1/iris/predict", "/v1/models/iris:predict", {"instances": iris}),
        _json_case("v1/iris/predict-inputs-key", "/v1/models/iris:predict", {"inputs": iris}),
    ]
    return cases


def request_edges() -> List[Case]:
    """Valid but unusual requests: the protocol says what they mean."""
    fp32 = "/v2/models/identity_fp32/infer"
    good = {"name": "INPUT0", "shape": [1, 2], "datatype": "FP32", "data": [1.0, 2.0]}
    body, headers = v2wire.binary_request(
        [{"name": "INPUT0", "shape": [1, 2], "datatype": "FP32", "values": [1.0, 2.0]}],
        request_id="binary-id")
    return [
        Case("edge/v2/binary-request-id", "POST", fp32, body, headers, request_id="binary-id"),
        _raw("edge/v2/json-charset", fp32, json.dumps({"inputs": [good]}).encode(),
             {"content-type": "application/json; charset=utf-8"}),
        _json_case("edge/v2/empty-outputs-list", fp32, {"inputs": [good], "outputs": []}),
        _json_case("edge/v2/duplicate-requested-output", fp32,
                   {"inputs": [good], "outputs": [{"name": "OUTPUT0"}, {"name": "OUTPUT0"}]}),
        _json_case("edge/v2/binary-data-output-false", fp32,
                   {"parameters": {"binary_data_output": False}, "inputs": [good]}),
        _json_case("edge/v2/output-binary-data-false", fp32,
                   {"inputs": [good], "outputs": [{"name": "OUTPUT0", "parameters": {"binary_data": False}}]}),
        _json_case("edge/v2/zero-rows", fp32,
                   {"inputs": [{"name": "INPUT0", "shape": [0, 2], "datatype": "FP32", "data": []}]}),
        _json_case("edge/v2/input-parameters", fp32,
                   {"inputs": [{**good, "parameters": {"content_type": "np", "n": 1}}]}),
        _json_case("edge/v2/unknown-top-level-field", fp32, {"model_name": "x", "inputs": [good]}),
        _json_case("edge/v2/bytes-unicode", "/v2/models/identity_bytes/infer",
                   {"inputs": [{"name": "INPUT0", "shape": [1, 3], "datatype": "BYTES",
                                "data": ["\u00e9\u00e8", "\U0001F600", "tab\tnew\nline"]}]}),
        _json_case("edge/v1/empty-instances", "/v1/models/identity_fp32:predict", {"instances": []}),
        _json_case("edge/v1/bytes", "/v1/models/identity_bytes:predict", {"instances": [["a", "b"]]}),
        Case("edge/route/openapi", "GET", "/openapi.json", compare="status"),
        Case("edge/route/docs-disabled", "GET", "/docs"),
        Case("edge/route/repository-index", "POST", "/v2/repository/index"),
    ]


def _raw(id: str, path: str, body: bytes, headers: Dict[str, str], method="POST") -> Case:
    return Case(id, method, path, body, headers)


def invalid_requests() -> List[Case]:
    fp32 = "/v2/models/identity_fp32/infer"
    good = {"name": "INPUT0", "shape": [1, 2], "datatype": "FP32", "data": [1.0, 2.0]}
    header_only = json.dumps({"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "FP32",
                                          "parameters": {"binary_data_size": 8}}]}).encode()
    two_floats = v2wire.to_raw("FP32", [1.0, 2.0])
    octet = "application/octet-stream"

    def binary_headers(length) -> Dict[str, str]:
        return {v2wire.HEADER: str(length), "content-type": octet}

    cases = [
        # -- JSON framing and schema --
        _raw("invalid/v2/malformed-json", fp32, b'{"inputs": [', dict(JSON)),
        _raw("invalid/v2/empty-body", fp32, b"", dict(JSON)),
        _raw("invalid/v2/json-array-body", fp32, b"[1, 2]", dict(JSON)),
        _json_case("invalid/v2/missing-inputs", fp32, {"outputs": []}),
        _json_case("invalid/v2/inputs-not-a-list", fp32, {"inputs": {"INPUT0": [1.0, 2.0]}}),
        _json_case("invalid/v2/input-missing-data", fp32,
                   {"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "FP32"}]}),
        _json_case("invalid/v2/input-missing-datatype", fp32,
                   {"inputs": [{"name": "INPUT0", "shape": [1, 2], "data": [1.0, 2.0]}]}),
        _json_case("invalid/v2/shape-not-a-list", fp32, {"inputs": [{**good, "shape": 2}]}),
        _json_case("invalid/v2/nested-parameter", fp32,
                   {"parameters": {"nested": {"a": 1}}, "inputs": [good]}),
        # -- datatype and shape against the model --
        _json_case("invalid/v2/wrong-datatype", fp32, {"inputs": [{**good, "datatype": "FP64"}]}),
        _json_case("invalid/v2/unknown-datatype", fp32, {"inputs": [{**good, "datatype": "FP33"}]}),
        _json_case("invalid/v2/wrong-rank", fp32, {"inputs": [{**good, "shape": [2]}]}),
        _json_case("invalid/v2/element-count-mismatch", fp32,
                   {"inputs": [{**good, "shape": [2, 2]}]}),
        _json_case("invalid/v2/fixed-dim-mismatch", "/v2/models/add_sub/infer",
                   {"inputs": [{"name": "INPUT0", "shape": [1, 8], "datatype": "FP32", "data": [1.0] * 8},
                               {"name": "INPUT1", "shape": [1, 8], "datatype": "FP32", "data": [1.0] * 8}]}),
        _json_case("invalid/v2/strings-for-fp32", fp32, {"inputs": [{**good, "data": ["a", "b"]}]}),
        _json_case("invalid/v2/int8-out-of-range", "/v2/models/identity_int8/infer",
                   {"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "INT8", "data": [1, 300]}]}),
        _json_case("invalid/v2/bool-as-numbers", "/v2/models/identity_bool/infer",
                   {"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "BOOL", "data": [1, 0]}]}),
        _json_case("invalid/v2/bool-as-other-truthy-values", "/v2/models/identity_bool/infer",
                   {"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "BOOL", "data": [2, -1]}]}),
        _json_case("invalid/v2/uneven-nesting-right-count", fp32,
                   {"inputs": [{"name": "INPUT0", "shape": [2, 2], "datatype": "FP32",
                                "data": [[1.0], [2.0, 3.0, 4.0]]}]}),
        # -- names --
        _json_case("invalid/v2/unknown-model", "/v2/models/no_such_model/infer", {"inputs": [good]}),
        _json_case("invalid/v2/unknown-model-fp16-json-data", "/v2/models/no_such_model/infer",
                   {"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "FP16", "data": [1.0, 2.0]}]}),
        _raw("invalid/v2/unknown-model-malformed-json", "/v2/models/no_such_model/infer",
             b'{"inputs": [', dict(JSON)),
        _raw("invalid/binary/unknown-model-missing-header-length", "/v2/models/no_such_model/infer",
             header_only + two_floats, {"content-type": octet}),
        _json_case("invalid/v2/unknown-input", fp32, {"inputs": [{**good, "name": "NOPE"}]}),
        _json_case("invalid/v2/missing-input", "/v2/models/add_sub/infer",
                   {"inputs": [{"name": "INPUT0", "shape": [1, 16], "datatype": "FP32", "data": ADD_SUB_A}]}),
        _json_case("invalid/v2/unknown-output", fp32, {"inputs": [good], "outputs": [{"name": "NOPE"}]}),
        _json_case("invalid/v2/fp16-empty-json-data", "/v2/models/identity_fp16/infer",
                   {"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "FP16", "data": []}]}),
        _json_case("invalid/v2/int64-json-2^53", "/v2/models/identity_int64/infer",
                   {"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "INT64", "data": [2**53, -(2**53)]}]}),
        _json_case("invalid/v2/uint64-json-beyond-2^53", "/v2/models/identity_uint64/infer",
                   {"inputs": [{"name": "INPUT0", "shape": [1, 1], "datatype": "UINT64", "data": [2**64 - 1]}]}),
        # -- content type --
        _raw("invalid/v2/json-as-text-plain", fp32, json.dumps({"inputs": [good]}).encode(),
             {"content-type": "text/plain"}),
        _raw("invalid/v2/json-without-content-type", fp32, json.dumps({"inputs": [good]}).encode(), {}),
        # -- binary extension framing --
        _raw("invalid/binary/missing-header-length", fp32, header_only + two_floats, {"content-type": octet}),
        _raw("invalid/binary/header-length-not-a-number", fp32, header_only + two_floats,
             binary_headers("abc")),
        _raw("invalid/binary/header-length-negative", fp32, header_only + two_floats, binary_headers(-5)),
        _raw("invalid/binary/header-length-zero", fp32, header_only + two_floats, binary_headers(0)),
        _raw("invalid/binary/header-length-too-large", fp32, header_only + two_floats,
             binary_headers(len(header_only) + len(two_floats) + 10)),
        _raw("invalid/binary/header-length-splits-json", fp32, header_only + two_floats,
             binary_headers(len(header_only) - 3)),
        _raw("invalid/binary/truncated-tensor", fp32, header_only + two_floats[:5],
             binary_headers(len(header_only))),
        _raw("invalid/binary/extra-trailing-bytes", fp32, header_only + two_floats + b"\x00" * 4,
             binary_headers(len(header_only))),
        _raw("invalid/binary/size-not-multiple-of-element", fp32,
             *_binary_with_header({"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "FP32",
                                               "parameters": {"binary_data_size": 7}}]}, two_floats[:7])),
        _raw("invalid/binary/input-without-data-or-size", fp32,
             *_binary_with_header({"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "FP32"}]}, b"")),
        _raw("invalid/binary/bytes-not-utf8-json-out", "/v2/models/identity_bytes/infer",
             *v2wire.binary_request([{"name": "INPUT0", "shape": [1, 2], "datatype": "BYTES",
                                      "values": [b"\xff\xfe", b"ok"]}])),
        _raw("invalid/binary/bytes-not-utf8-binary-out", "/v2/models/identity_bytes/infer",
             *v2wire.binary_request([{"name": "INPUT0", "shape": [1, 2], "datatype": "BYTES",
                                      "values": [b"\xff\xfe", b"ok"]}],
                                    parameters={"binary_data_output": True})),
        _raw("invalid/binary/fp16-json-data", "/v2/models/identity_fp16/infer",
             *v2wire.binary_request([{"name": "INPUT0", "shape": [1, 2], "datatype": "FP16",
                                      "values": [1.0, 2.0], "json": True}])),
        _raw("invalid/binary/bytes-element-overruns", "/v2/models/identity_bytes/infer",
             *_bytes_overrun()),
        # -- V1 --
        _raw("invalid/v1/malformed-json", "/v1/models/identity_fp32:predict", b'{"instances": [', dict(JSON)),
        _json_case("invalid/v1/instances-not-a-list", "/v1/models/identity_fp32:predict", {"instances": 5}),
        _json_case("invalid/v1/no-instances", "/v1/models/identity_fp32:predict", {"data": [[1.0]]}),
        _json_case("invalid/v1/wrong-rank", "/v1/models/identity_fp32:predict", {"instances": [1.0, 2.0]}),
        _json_case("invalid/v1/strings-for-fp32", "/v1/models/identity_fp32:predict",
                   {"instances": [["a", "b"]]}),
        _json_case("invalid/v1/ragged-instances", "/v1/models/identity_fp32:predict",
                   {"instances": [[1.0, 2.0], [3.0]]}),
        _json_case("invalid/v1/unknown-model", "/v1/models/no_such_model:predict", {"instances": [[1.0]]}),
        _json_case("invalid/v1/explain", "/v1/models/identity_fp32:explain", {"instances": [[1.0, 2.0]]}),
        # -- routes --
        Case("invalid/route/unknown-path", "GET", "/unknown_path"),
        Case("invalid/route/unknown-model-status-v1", "GET", "/v1/models/no_such_model"),
        Case("invalid/route/unknown-model-metadata", "GET", "/v2/models/no_such_model"),
        Case("invalid/route/unknown-model-ready", "GET", "/v2/models/no_such_model/ready"),
        Case("invalid/route/infer-with-get", "GET", fp32),
        Case("invalid/route/version-metadata", "GET", "/v2/models/identity_fp32/versions/1"),
        Case("invalid/route/version-ready", "GET", "/v2/models/identity_fp32/versions/1/ready"),
        _json_case("invalid/route/version-infer", "/v2/models/identity_fp32/versions/1/infer",
                   {"inputs": [good]}),
    ]
    return cases


def _binary_with_header(header: Dict, tail: bytes):
    head = json.dumps(header).encode()
    return head + tail, {v2wire.HEADER: str(len(head)), "content-type": "application/octet-stream"}


def _bytes_overrun():
    # One BYTES element whose 4-byte length claims more bytes than the tensor holds.
    raw = b"\x10\x00\x00\x00abc"
    head = json.dumps({"inputs": [{"name": "INPUT0", "shape": [1, 1], "datatype": "BYTES",
                                   "parameters": {"binary_data_size": len(raw)}}]}).encode()
    return head + raw, {v2wire.HEADER: str(len(head)), "content-type": "application/octet-stream"}


def repository() -> List[Case]:
    # Runs last: unload a model, see it gone, load it back, see it serve again.
    m = "scale2_fp32"
    infer = {"inputs": [{"name": "INPUT0", "shape": [1, 2], "datatype": "FP32", "data": [1.0, 2.5]}]}
    return [
        Case("repository/load-unknown", "POST", "/v2/repository/models/no_such_model/load"),
        Case("repository/unload-unknown", "POST", "/v2/repository/models/no_such_model/unload"),
        Case("repository/unload", "POST", f"/v2/repository/models/{m}/unload"),
        Case("repository/ready-after-unload", "GET", f"/v2/models/{m}/ready"),
        _json_case("repository/infer-after-unload", f"/v2/models/{m}/infer", infer),
        Case("repository/server-ready-after-unload", "GET", "/v2/health/ready"),
        Case("repository/load", "POST", f"/v2/repository/models/{m}/load"),
        Case("repository/ready-after-load", "GET", f"/v2/models/{m}/ready"),
        _json_case("repository/infer-after-load", f"/v2/models/{m}/infer", infer),
    ]


def all_cases() -> List[Case]:
    cases = (server_routes() + model_routes() + identity_inference() + multi_io_models()
             + request_edges() + invalid_requests() + repository())
    ids = [c.id for c in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"duplicate case ids: {duplicates}"
    return cases
