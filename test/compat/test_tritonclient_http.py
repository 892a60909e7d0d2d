"""Triton's Python HTTP client (`tritonclient.http`) against both servers: server and model
metadata, readiness, inference with binary_data on and off for every datatype the identity
models expose, requested outputs, BYTES as numpy object arrays, repository load/unload,
errors raised as `InferenceServerException`, and (kserve-ts only: the anchor has none of them)
Triton's model configuration and statistics extensions and load_model with a config override."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import corpus
import harness
import known_differences


def anchor_refuses_json_only(target) -> bool:
    """tritonclient.http sends a JSON-only request (no binary input) without a JSON
    content-type; the anchor then reads the body as binary and refuses it. kserve-ts parses
    it (known_differences: non-json-content-type)."""
    known_differences.get("non-json-content-type")
    return target.role == "anchor"


def assert_anchor_refusal(call):
    with pytest.raises(InferenceServerException) as e:
        call()
    assert e.value.status() == "400"
    assert "'inference-header-content-length' header is missing" in e.value.message()


@pytest.fixture
def client(target):
    c = httpclient.InferenceServerClient(url=f"127.0.0.1:{target.http_port}", network_timeout=30)
    yield c
    c.close()


def test_health(client):
    assert client.is_server_live()
    assert client.is_server_ready()
    assert client.is_model_ready("identity_fp32")
    assert not client.is_model_ready("no_such_model")


def test_server_metadata(client):
    meta = client.get_server_metadata()
    assert set(meta) == {"name", "version", "extensions"}
    assert meta["name"] and meta["version"]
    assert "model_repository_extension" in meta["extensions"]


def test_model_metadata(client):
    meta = client.get_model_metadata("iris")
    assert meta["name"] == "iris"
    assert meta["inputs"] == [{"name": "input", "datatype": "FP32", "shape": [-1, 4]}]
    assert meta["outputs"] == [
        {"name": "label", "datatype": "INT64", "shape": [-1]},
        {"name": "probabilities", "datatype": "FP32", "shape": [-1, 3]},
    ]
    for dt in harness.IDENTITY_DATATYPES:
        meta = client.get_model_metadata(harness.identity_model(dt))
        assert meta["inputs"] == [{"name": "INPUT0", "datatype": dt, "shape": [-1, -1]}]
        assert meta["outputs"] == [{"name": "OUTPUT0", "datatype": dt, "shape": [-1, -1]}]


def _identity(client, datatype, values, binary):
    infer_input = httpclient.InferInput("INPUT0", list(values.shape), datatype)
    infer_input.set_data_from_numpy(values, binary_data=binary)
    output = httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary)
    return client.infer(harness.identity_model(datatype), [infer_input], outputs=[output],
                        request_id=f"id-{datatype}")


JSON_DATATYPES = [dt for dt in harness.IDENTITY_DATATYPES if dt != "FP16"]


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "json"])
@pytest.mark.parametrize("datatype", harness.IDENTITY_DATATYPES)
def test_infer_every_datatype(target, client, datatype, binary):
    values = corpus.identity_array(datatype)
    if not binary and anchor_refuses_json_only(target):
        assert_anchor_refusal(lambda: _identity(client, datatype, values, binary))
        return
    if datatype == "FP16" and not binary:
        # FP16 has no JSON form in KServe: both servers refuse it with 400.
        with pytest.raises(InferenceServerException) as e:
            _identity(client, datatype, values, binary)
        assert e.value.status() == "400"
        return
    result = _identity(client, datatype, values, binary)
    assert result.get_response()["id"] == f"id-{datatype}"
    out = result.as_numpy("OUTPUT0")
    assert out.shape == values.shape
    if datatype == "BYTES":
        got = [v if isinstance(v, bytes) else v.encode() for v in out.flatten()]
        assert got == list(values.flatten())
    else:
        assert out.dtype == values.dtype
        np.testing.assert_array_equal(out, values)


def test_infer_bytes_from_str_object_array(client):
    values = np.array([["héllo", "wörld"], ["", "日本"]], dtype=np.object_)
    infer_input = httpclient.InferInput("INPUT0", [2, 2], "BYTES")
    infer_input.set_data_from_numpy(values, binary_data=True)
    result = client.infer("identity_bytes", [infer_input])
    assert [v.decode() for v in result.as_numpy("OUTPUT0").flatten()] == list(values.flatten())


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "json"])
def test_requested_outputs_in_request_order(target, client, binary):
    a = np.arange(16, dtype=np.float32).reshape(1, 16)
    b = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16)
    inputs = [httpclient.InferInput("INPUT0", [1, 16], "FP32"), httpclient.InferInput("INPUT1", [1, 16], "FP32")]
    inputs[0].set_data_from_numpy(a, binary_data=binary)
    inputs[1].set_data_from_numpy(b, binary_data=binary)
    outputs = [httpclient.InferRequestedOutput("OUTPUT1", binary_data=binary),
               httpclient.InferRequestedOutput("OUTPUT0", binary_data=not binary)]
    if not binary and anchor_refuses_json_only(target):
        assert_anchor_refusal(lambda: client.infer("add_sub", inputs, outputs=outputs))
        return
    result = client.infer("add_sub", inputs, outputs=outputs)
    assert [o["name"] for o in result.get_response()["outputs"]] == ["OUTPUT1", "OUTPUT0"]
    np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), a - b)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a + b)

    only = client.infer("add_sub", inputs, outputs=[httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary)])
    assert [o["name"] for o in only.get_response()["outputs"]] == ["OUTPUT0"]
    assert only.as_numpy("OUTPUT1") is None


def test_infer_iris(client):
    x = np.array([[6.8, 2.8, 4.8, 1.4], [5.1, 3.5, 1.4, 0.2]], dtype=np.float32)
    infer_input = httpclient.InferInput("input", [2, 4], "FP32")
    infer_input.set_data_from_numpy(x)
    result = client.infer("iris", [infer_input])
    assert result.as_numpy("label").tolist() == [1, 0]
    np.testing.assert_allclose(result.as_numpy("probabilities").sum(axis=1), [1.0, 1.0], rtol=1e-5)


def test_repository_unload_and_load(client):
    model = "scale2_fp32"
    try:
        client.unload_model(model)
        assert not client.is_model_ready(model)
    finally:
        client.load_model(model)
    assert client.is_model_ready(model)
    x = np.array([[1.0, 2.5]], dtype=np.float32)
    infer_input = httpclient.InferInput("INPUT0", [1, 2], "FP32")
    infer_input.set_data_from_numpy(x)
    np.testing.assert_array_equal(client.infer(model, [infer_input]).as_numpy("OUTPUT0"), 2 * x)


def test_repository_index(ours):
    # Ours only: the anchor has no index route (known_differences: repository-index).
    with httpclient.InferenceServerClient(url=f"127.0.0.1:{ours.http_port}") as client:
        index = client.get_model_repository_index()
    assert {m["name"]: m["state"] for m in index} == {name: "READY" for name in harness.MODELS}


def test_unknown_model_raises(client):
    infer_input = httpclient.InferInput("INPUT0", [1, 1], "FP32")
    infer_input.set_data_from_numpy(np.ones((1, 1), dtype=np.float32))
    with pytest.raises(InferenceServerException) as e:
        client.infer("no_such_model", [infer_input])
    assert e.value.status() == "404"
    assert e.value.message() == "Model with name no_such_model does not exist."
    with pytest.raises(InferenceServerException) as e:
        client.get_model_metadata("no_such_model")
    assert e.value.status() == "404"


def test_bad_shape_raises(client):
    infer_input = httpclient.InferInput("INPUT0", [1, 8], "FP32")
    infer_input.set_data_from_numpy(np.ones((1, 8), dtype=np.float32))
    other = httpclient.InferInput("INPUT1", [1, 8], "FP32")
    other.set_data_from_numpy(np.ones((1, 8), dtype=np.float32))
    with pytest.raises(InferenceServerException) as e:
        client.infer("add_sub", [infer_input, other])
    assert e.value.status() == "400"
    assert "INPUT0" in e.value.message()


def test_unknown_output_raises(client):
    infer_input = httpclient.InferInput("INPUT0", [1, 2], "FP32")
    infer_input.set_data_from_numpy(np.ones((1, 2), dtype=np.float32))
    with pytest.raises(InferenceServerException) as e:
        client.infer("identity_fp32", [infer_input], outputs=[httpclient.InferRequestedOutput("NOPE")])
    assert e.value.status() == "400"


def _fp32(name, rows, cols):
    infer_input = httpclient.InferInput(name, [rows, cols], "FP32")
    infer_input.set_data_from_numpy(np.arange(rows * cols, dtype=np.float32).reshape(rows, cols))
    return infer_input


def test_model_config(ours_extensions):
    # Ours only: the anchor has no model configuration extension.
    with httpclient.InferenceServerClient(url=f"127.0.0.1:{ours_extensions.http_port}") as client:
        config = client.get_model_config("versioned")
        assert config["name"] == "versioned"
        assert (config["platform"], config["backend"], config["max_batch_size"]) == (
            "onnxruntime_onnx", "onnxruntime", 0)
        assert config["input"] == [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [-1, -1]}]
        assert config["output"] == [{"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [-1, -1]}]
        assert "dynamic_batching" not in config
        assert client.get_model_config("versioned", "1")["input"] == config["input"]

        batched = client.get_model_config("batched")
        assert batched["max_batch_size"] == 8
        assert [(t["name"], t["data_type"], t["dims"]) for t in batched["input"]] == [
            ("INPUT0", "TYPE_FP32", [16]), ("INPUT1", "TYPE_FP32", [16])]
        assert batched["dynamic_batching"] == {"preferred_batch_size": [4, 8], "max_queue_delay_microseconds": 100}

        with pytest.raises(InferenceServerException) as e:
            client.get_model_config("no_such_model")
        assert e.value.status() == "404"
        assert e.value.message() == "Model with name no_such_model does not exist."


def test_inference_statistics(ours_extensions):
    # Ours only: the anchor has no statistics extension. This server serves no other test.
    with httpclient.InferenceServerClient(url=f"127.0.0.1:{ours_extensions.http_port}") as client:
        for _ in range(3):
            client.infer("versioned", [_fp32("INPUT0", 1, 2)], model_version="1")
        for _ in range(2):
            client.infer("versioned", [_fp32("INPUT0", 1, 2)])
        wrong = httpclient.InferInput("INPUT0", [1, 2], "INT32")
        wrong.set_data_from_numpy(np.ones((1, 2), dtype=np.int32))
        with pytest.raises(InferenceServerException):
            client.infer("versioned", [wrong], model_version="1")
        for rows in (3, 1):
            client.infer("batched", [_fp32("INPUT0", rows, 16), _fp32("INPUT1", rows, 16)])

        stats = client.get_inference_statistics("versioned")["model_stats"]
        assert [(s["name"], s["version"]) for s in stats] == [("versioned", "1"), ("versioned", "2")]
        v1, v2 = stats
        for s, ok, failed in ((v1, 3, 1), (v2, 2, 0)):
            assert (s["inference_count"], s["execution_count"]) == (ok, ok)
            counts = {k: d["count"] for k, d in s["inference_stats"].items()}
            assert counts == {"success": ok, "fail": failed, "queue": 0, "compute_input": ok, "compute_infer": ok,
                              "compute_output": ok, "cache_hit": 0, "cache_miss": 0}
            assert [(b["batch_size"], b["compute_infer"]["count"]) for b in s["batch_stats"]] == [(1, ok)]
            assert s["last_inference"] > 0
        assert client.get_inference_statistics("versioned", "1")["model_stats"] == [v1]

        every = client.get_inference_statistics()["model_stats"]
        assert sorted(s["name"] for s in every) == ["batched", "versioned", "versioned"]
        batched = next(s for s in every if s["name"] == "batched")
        # Rows are inferences; each request, sent alone, ran as a batch of its own.
        assert (batched["inference_count"], batched["execution_count"]) == (4, 2)
        assert [(b["batch_size"], b["compute_infer"]["count"]) for b in batched["batch_stats"]] == [(1, 1), (3, 1)]
        assert batched["inference_stats"]["queue"]["count"] == 2

        with pytest.raises(InferenceServerException) as e:
            client.get_inference_statistics("no_such_model")
        assert e.value.status() == "404"


def _add_sub(client, rows):
    result = client.infer("batched", [_fp32("INPUT0", rows, 16), _fp32("INPUT1", rows, 16)])
    x = np.arange(rows * 16, dtype=np.float32).reshape(rows, 16)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), x + x)


def test_load_model_with_config_override(ours_load_override):
    # Ours only: the anchor's load takes no parameters.
    with httpclient.InferenceServerClient(url=f"127.0.0.1:{ours_load_override.http_port}") as client:
        # Triton's round trip: the configuration the server reports, changed, loaded back.
        override = client.get_model_config("batched")
        assert (override["max_batch_size"], override["instance_group"][0]["count"]) == (8, 1)
        override.update(max_batch_size=4, instance_group=[{"kind": "KIND_CPU", "count": 2}],
                        dynamic_batching={"preferred_batch_size": [2, 4], "max_queue_delay_microseconds": 100})
        client.load_model("batched", config=json.dumps(override))
        config = client.get_model_config("batched")
        assert config["max_batch_size"] == 4
        assert [(g["kind"], g["count"]) for g in config["instance_group"]] == [("KIND_CPU", 2)]
        assert config["dynamic_batching"]["preferred_batch_size"] == [2, 4]
        _add_sub(client, 4)
        with pytest.raises(InferenceServerException) as e:
            _add_sub(client, 5)
        assert e.value.status() == "400"
        assert "max_batch_size 4" in e.value.message()

        # A bad override is refused; the model keeps serving with the configuration it has.
        bad = {
            "max_batch_size: 4": "config is not JSON",
            json.dumps({"max_batch_size": -1}): "max_batch_size must be >= 0",
            json.dumps({"input": [{"name": "NOPE", "data_type": "TYPE_FP32", "dims": [16]}]}):
                "the config override declares input 'NOPE' but model batched has inputs [INPUT0, INPUT1]",
        }
        for text, reason in bad.items():
            with pytest.raises(InferenceServerException) as e:
                client.load_model("batched", config=text)
            assert e.value.status() == "400", text
            assert reason in e.value.message(), e.value.message()
            assert client.get_model_config("batched")["max_batch_size"] == 4
            assert client.is_model_ready("batched")
            _add_sub(client, 2)

        # The override lasts until the next load: without one, config.pbtxt applies again.
        client.load_model("batched")
        assert client.get_model_config("batched")["max_batch_size"] == 8
        _add_sub(client, 8)
