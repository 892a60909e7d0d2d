"""Port of the black-box behaviours checked by KServe's python/kserve/test/test_server.py
(written from kserve 0.20's; run on the anchor's release), in this project's words: the same requests and the same expected status
codes and bytes, against real servers on loopback instead of FastAPI's in-process client.

The anchor's tests use echo models defined in that file (TestModel, FP16InputModel,
FP16OutputModel, ...). Here the fixture ONNX models stand in: identity_* echo one tensor,
add_sub has two FP32 outputs for requested-output and binary precedence cases. Every test
runs against the anchor too (the `target` fixture), which shows the adaptation kept the
anchor's facts. Where kserve-ts differs on purpose, the test asserts kserve-ts's behaviour
for the entry of known_differences.py it names.

Not ported, because they test Python model code rather than the server: the datetime output
model, Ray, multi-process workers (kserve-ts runs one process, see docs/compatibility.md),
and the parameter echo of the anchor's TestModel (a model choice; both servers' models here
do not echo).
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import requests

import harness
import known_differences
import v2wire

JSON = {"content-type": "application/json"}
FP16_ROWS = [[6.8, 2.8, 4.8, 1.4], [6.0, 3.4, 4.5, 1.6]]
# Exactly representable in FP32, short in JSON: the expected bytes can be written down.
A = [float(i) for i in range(16)]
B = [0.5 * i for i in range(16)]


def post(target, path, body, headers=None):
    return requests.post(target.url + path, data=body, headers=headers or {}, timeout=30)


def get(target, path):
    return requests.get(target.url + path, timeout=30)


def add_sub_request(**extra) -> bytes:
    return json.dumps({
        "id": "123",
        "inputs": [{"name": "INPUT0", "shape": [1, 16], "datatype": "FP32", "data": A},
                   {"name": "INPUT1", "shape": [1, 16], "datatype": "FP32", "data": B}],
        **extra,
    }).encode()


def floats(values) -> str:
    return "[" + ",".join(repr(float(v)) for v in values) + "]"


SUM = [a + b for a, b in zip(A, B)]
DIFF = [a - b for a, b in zip(A, B)]


# ---- V1 ----

def test_liveness_v1(target):
    r = get(target, "/")
    assert r.status_code == 200
    assert r.content == b'{"status":"alive"}'


def test_model_ready_v1(target):
    r = get(target, "/v1/models/identity_int32")
    assert r.status_code == 200
    assert r.content == b'{"name":"identity_int32","ready":true}'


def test_unknown_model_v1(target):
    r = get(target, "/v1/models/InvalidModel")
    assert r.status_code == 404
    assert r.json() == {"error": "Model with name InvalidModel does not exist."}


def test_list_models_v1(target):
    r = get(target, "/v1/models")
    assert r.status_code == 200
    assert r.json() == {"models": sorted(harness.MODELS)}


def test_predict_v1(target):
    r = post(target, "/v1/models/identity_int32:predict", b'{"instances":[[1,2]]}', JSON)
    assert r.status_code == 200
    assert r.content == b'{"predictions":[[1,2]]}'
    assert r.headers["content-type"] == "application/json"


def test_explain_v1_without_explainer(target):
    # The anchor's TestModel implements explain; an ONNX model has no explainer on either
    # server, which both answer with 501.
    r = post(target, "/v1/models/identity_int32:explain", b'{"instances":[[1,2]]}', JSON)
    assert r.status_code == 501
    assert list(r.json()) == ["error"]


def test_unknown_path_v1(target):
    r = get(target, "/unknown_path")
    assert r.status_code == 404
    if target.role == "anchor":
        assert r.json() == {"detail": "Not Found"}
    else:
        known_differences.get("unknown-route")
        assert r.json() == {"error": "Route GET:/unknown_path not found"}


def test_metrics(target):
    r = get(target, "/metrics")
    assert r.status_code == 200
    assert b"request_predict_seconds" in r.content


# ---- V2 ----

def test_list_models_v2(target):
    r = get(target, "/v2/models")
    assert r.status_code == 200
    assert r.json() == {"models": sorted(harness.MODELS)}


def test_infer_v2(target):
    body = b'{"inputs": [{"name": "INPUT0","shape": [1, 2],"datatype": "INT32","data": [[1,2]]}]}'
    r = post(target, "/v2/models/identity_int32/infer", body, JSON)
    assert r.status_code == 200
    assert r.json()["outputs"][0]["data"] == [1, 2]
    assert r.headers["content-type"] == "application/json"


def test_infer_parameters_v2(target):
    body = json.dumps({
        "id": "123",
        "parameters": {"test-str": "dummy", "test-bool": True, "test-int": 100, "test-float": 1.3},
        "inputs": [{"name": "INPUT0", "datatype": "INT32", "shape": [1, 2], "data": [1, 2],
                    "parameters": {"test-str": "dummy", "test-bool": True, "test-int": 100,
                                   "test-float": 1.3}}],
    }).encode()
    r = post(target, "/v2/models/identity_int32/infer", body, JSON)
    assert r.status_code == 200
    assert r.content == (b'{"model_name":"identity_int32","model_version":null,"id":"123","parameters":null,'
                         b'"outputs":[{"name":"OUTPUT0","shape":[1,2],"datatype":"INT32","parameters":null,'
                         b'"data":[1,2]}]}')


def test_fp16_input_as_binary_data(target):
    values = np.array(FP16_ROWS, dtype=np.float16)
    body, headers = v2wire.binary_request(
        [{"name": "INPUT0", "shape": [2, 4], "datatype": "FP16", "values": values}],
        request_id="123", parameters={"binary_data_output": True})
    r = post(target, "/v2/models/identity_fp16/infer", body, headers)
    assert r.status_code == 200
    head = (b'{"id":"123","model_name":"identity_fp16","model_version":null,"outputs":[{"name":"OUTPUT0",'
            b'"shape":[2,4],"datatype":"FP16","parameters":{"binary_data_size":16}}]}')
    assert r.content == head + values.tobytes()
    assert r.headers[v2wire.HEADER] == str(len(head))


def test_fp16_input_not_binary_data(target):
    body = json.dumps({"id": "123", "inputs": [
        {"name": "INPUT0", "shape": [2, 4], "datatype": "FP16", "data": FP16_ROWS}]}).encode()
    r = post(target, "/v2/models/identity_fp16/infer", body, JSON)
    assert r.status_code == 400


def test_fp16_output_as_binary_data(target):
    values = np.array(FP16_ROWS, dtype=np.float16)
    body, headers = v2wire.binary_request(
        [{"name": "INPUT0", "shape": [2, 4], "datatype": "FP16", "values": values}],
        request_id="123", outputs=[{"name": "OUTPUT0", "parameters": {"binary_data": True}}])
    r = post(target, "/v2/models/identity_fp16/infer", body, headers)
    assert r.status_code == 200
    head = (b'{"id":"123","model_name":"identity_fp16","model_version":null,"outputs":[{"name":"OUTPUT0",'
            b'"shape":[2,4],"datatype":"FP16","parameters":{"binary_data_size":16}}]}')
    assert r.content == head + b"\xcdF\x9aA\xcdD\x9a=\x00F\xcdB\x80Df>"
    assert r.headers[v2wire.HEADER] == str(len(head))


def test_fp16_output_not_binary_data(target):
    values = np.array(FP16_ROWS, dtype=np.float16)
    body, headers = v2wire.binary_request(
        [{"name": "INPUT0", "shape": [2, 4], "datatype": "FP16", "values": values}],
        request_id="123", outputs=[{"name": "OUTPUT0"}])
    r = post(target, "/v2/models/identity_fp16/infer", body, headers)
    assert r.status_code == 400


def test_requested_output(target):
    r = post(target, "/v2/models/add_sub/infer",
             add_sub_request(outputs=[{"name": "OUTPUT1", "parameters": {"binary_data": False}}]), JSON)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    expected = ('{"model_name":"add_sub","model_version":null,"id":"123","parameters":null,'
                '"outputs":[{"name":"OUTPUT1","shape":[1,16],"datatype":"FP32","parameters":null,'
                f'"data":{floats(DIFF)}}}]}}')
    assert r.content == expected.encode()


def test_all_outputs_as_binary_data(target):
    r = post(target, "/v2/models/add_sub/infer", add_sub_request(parameters={"binary_data_output": True}), JSON)
    assert r.status_code == 200
    head = (b'{"id":"123","model_name":"add_sub","model_version":null,"outputs":['
            b'{"name":"OUTPUT0","shape":[1,16],"datatype":"FP32","parameters":{"binary_data_size":64}},'
            b'{"name":"OUTPUT1","shape":[1,16],"datatype":"FP32","parameters":{"binary_data_size":64}}]}')
    raw = np.array(SUM, dtype=np.float32).tobytes() + np.array(DIFF, dtype=np.float32).tobytes()
    assert r.content == head + raw
    assert r.headers[v2wire.HEADER] == str(len(head))


def test_binary_data_parameter_precedence(target):
    r = post(target, "/v2/models/add_sub/infer", add_sub_request(
        parameters={"binary_data_output": True},
        outputs=[{"name": "OUTPUT0", "parameters": {"binary_data": True}},
                 {"name": "OUTPUT1", "parameters": {"binary_data": False}}]), JSON)
    assert r.status_code == 200
    head = ('{"id":"123","model_name":"add_sub","model_version":null,"outputs":['
            '{"name":"OUTPUT0","shape":[1,16],"datatype":"FP32","parameters":{"binary_data_size":64}},'
            f'{{"name":"OUTPUT1","shape":[1,16],"datatype":"FP32","data":{floats(DIFF)}}}]}}').encode()
    assert r.content == head + np.array(SUM, dtype=np.float32).tobytes()
    assert r.headers[v2wire.HEADER] == str(len(head))


# ---- Repository extension (TestTFHttpServerLoadAndUnLoad[Failure]) ----

def test_unload_and_load(target):
    r = post(target, "/v2/repository/models/scale2_fp32/unload", b"")
    assert r.status_code == 200
    assert r.content == b'{"name":"scale2_fp32","unload":true}'
    r = post(target, "/v2/repository/models/scale2_fp32/load", b"")
    assert r.status_code == 200
    assert r.content == b'{"name":"scale2_fp32","load":true}'


def test_load_failure(target):
    r = post(target, "/v2/repository/models/no_such_model/load", b"")
    if target.role == "anchor":
        assert r.status_code == 503
    else:
        known_differences.get("load-unknown-model")
        assert r.status_code == 404


def test_unload_failure(target):
    r = post(target, "/v2/repository/models/no_such_model/unload", b"")
    assert r.status_code == 404


# ---- A model that is known but not ready (TestTFHttpServerModelNotReady) ----
# The anchor's never-loaded TestModel; in kserve-ts, a model whose load failed.

@pytest.mark.parametrize("method,path,body", [
    ("GET", "/v1/models/never_ready", None),
    ("GET", "/v2/models/never_ready/ready", None),
    ("POST", "/v1/models/never_ready:predict", b'{"instances":[[1,2]]}'),
    ("POST", "/v2/models/never_ready/infer",
     b'{"inputs": [{"name": "input-0","shape": [1, 2],"datatype": "INT32","data": [[1,2]]}]}'),
    ("POST", "/v1/models/never_ready:explain", b'{"instances":[[1,2]]}'),
])
def test_model_not_ready(ours_with_failed_model, method, path, body):
    r = requests.request(method, ours_with_failed_model.url + path, data=body, headers=JSON, timeout=30)
    assert r.status_code == 503
    assert r.json()["error"].startswith("Model with name never_ready is not ready.")


# ---- No model ready at start (TestWithUnhealthyModel) ----

def test_no_model_ready_stops_the_server(work_dir):
    """The anchor's ModelServer.start raises NoModelReady; kserve-ts exits with code 1."""
    repo = harness.make_repository({"never_ready": harness.FIXTURES / "identity_bf16.onnx"})
    server = harness.kserve_ts(repo, work_dir, name="kserve-ts-no-model-ready")
    try:
        with pytest.raises(RuntimeError, match="exited with code 1"):
            server.start(60)
    finally:
        shutil.rmtree(repo, ignore_errors=True)
