"""Triton's Python gRPC client (`tritonclient.grpc`) against both servers, and (kserve-ts
only: the anchor has none of them) Triton's ModelConfig and ModelStatistics RPCs, decoded by
tritonclient's own protobuf messages, and RepositoryModelLoad with a config override.

Runs in its own pytest process (run.sh): tritonclient.grpc and kserve register the same
protobuf package (`inference`) from different .proto files, and protobuf refuses the second
registration in one process.
"""

from __future__ import annotations

import json
import sys

import pytest

if any(name.startswith("kserve") for name in sys.modules):
    raise RuntimeError(
        "test_tritonclient_grpc.py must run in a pytest process that does not import kserve "
        "(see test/compat/run.sh)"
    )

import numpy as np  # noqa: E402
import tritonclient.grpc as grpcclient  # noqa: E402
from tritonclient.utils import InferenceServerException  # noqa: E402

import corpus  # noqa: E402
import harness  # noqa: E402
import known_differences  # noqa: E402


@pytest.fixture
def client(target):
    c = grpcclient.InferenceServerClient(url=target.grpc_target)
    yield c
    c.close()


def test_health(client):
    assert client.is_server_live()
    assert client.is_server_ready()
    assert client.is_model_ready("identity_fp32")


def test_model_ready_unknown_model_raises_not_found(client):
    # KServe's servicer answers NOT_FOUND for an unknown model (Triton answers ready=false).
    with pytest.raises(InferenceServerException) as e:
        client.is_model_ready("no_such_model")
    assert e.value.status() == "StatusCode.NOT_FOUND"


def test_server_metadata(client):
    meta = client.get_server_metadata(as_json=True)
    assert meta["name"] and meta["version"]
    assert "model_repository_extension" in meta["extensions"]


def test_model_metadata(client):
    meta = client.get_model_metadata("add_sub", as_json=True)
    assert meta["name"] == "add_sub"
    assert meta["inputs"] == [
        {"name": "INPUT0", "datatype": "FP32", "shape": ["-1", "16"]},
        {"name": "INPUT1", "datatype": "FP32", "shape": ["-1", "16"]},
    ]
    assert meta["outputs"] == [
        {"name": "OUTPUT0", "datatype": "FP32", "shape": ["-1", "16"]},
        {"name": "OUTPUT1", "datatype": "FP32", "shape": ["-1", "16"]},
    ]


@pytest.mark.parametrize("datatype", harness.IDENTITY_DATATYPES)
def test_infer_every_datatype(client, datatype):
    # tritonclient.grpc always sends raw_input_contents, so answers come back raw too.
    values = corpus.identity_array(datatype)
    infer_input = grpcclient.InferInput("INPUT0", list(values.shape), datatype)
    infer_input.set_data_from_numpy(values)
    result = client.infer(harness.identity_model(datatype), [infer_input], request_id=f"id-{datatype}")
    assert result.get_response().id == f"id-{datatype}"
    out = result.as_numpy("OUTPUT0")
    assert out.shape == values.shape
    if datatype == "BYTES":
        assert list(out.flatten()) == list(values.flatten())
    else:
        assert out.dtype == values.dtype
        np.testing.assert_array_equal(out, values)


@pytest.mark.parametrize("datatype", ["INT64", "UINT64"])
def test_infer_64_bit_extremes(client, datatype):
    values = np.array(corpus.BINARY_ONLY_VALUES[datatype], dtype=corpus.v2wire.NUMPY[datatype])
    infer_input = grpcclient.InferInput("INPUT0", list(values.shape), datatype)
    infer_input.set_data_from_numpy(values)
    out = client.infer(harness.identity_model(datatype), [infer_input]).as_numpy("OUTPUT0")
    np.testing.assert_array_equal(out, values)


def test_infer_bytes_from_str_object_array(client):
    values = np.array([["héllo", "wörld"], ["", "日本"]], dtype=np.object_)
    infer_input = grpcclient.InferInput("INPUT0", [2, 2], "BYTES")
    infer_input.set_data_from_numpy(values)
    out = client.infer("identity_bytes", [infer_input]).as_numpy("OUTPUT0")
    assert [v.decode() for v in out.flatten()] == list(values.flatten())


def test_requested_outputs(client, target):
    a = np.arange(16, dtype=np.float32).reshape(1, 16)
    b = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16)
    inputs = [grpcclient.InferInput("INPUT0", [1, 16], "FP32"), grpcclient.InferInput("INPUT1", [1, 16], "FP32")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(b)
    result = client.infer("add_sub", inputs, outputs=[grpcclient.InferRequestedOutput("OUTPUT1"),
                                                      grpcclient.InferRequestedOutput("OUTPUT0")])
    assert [o.name for o in result.get_response().outputs] == ["OUTPUT1", "OUTPUT0"]
    np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), a - b)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a + b)


def test_unknown_model_raises(client):
    infer_input = grpcclient.InferInput("INPUT0", [1, 1], "FP32")
    infer_input.set_data_from_numpy(np.ones((1, 1), dtype=np.float32))
    with pytest.raises(InferenceServerException) as e:
        client.infer("no_such_model", [infer_input])
    assert e.value.status() == "StatusCode.NOT_FOUND"
    assert "Model with name no_such_model does not exist." in e.value.message()


def test_bad_shape_raises(client):
    infer_input = grpcclient.InferInput("INPUT0", [4], "FP32")
    infer_input.set_data_from_numpy(np.ones(4, dtype=np.float32))
    with pytest.raises(InferenceServerException) as e:
        client.infer("identity_fp32", [infer_input])
    assert e.value.status() == "StatusCode.INVALID_ARGUMENT"


def test_repository_unload_and_load(ours):
    model = "scale2_fp32"
    with grpcclient.InferenceServerClient(url=ours.grpc_target) as client:
        try:
            client.unload_model(model)
            # KServe semantics (the anchor's too): an unloaded model is unknown, so the
            # readiness RPC answers NOT_FOUND, which tritonclient raises; Triton says false.
            with pytest.raises(InferenceServerException, match="does not exist"):
                client.is_model_ready(model)
        finally:
            client.load_model(model)
        assert client.is_model_ready(model)
        x = np.array([[1.0, 2.5]], dtype=np.float32)
        infer_input = grpcclient.InferInput("INPUT0", [1, 2], "FP32")
        infer_input.set_data_from_numpy(x)
        np.testing.assert_array_equal(client.infer(model, [infer_input]).as_numpy("OUTPUT0"), 2 * x)


@pytest.mark.parametrize("in_flight", [32, 128])
def test_many_large_calls_on_one_channel(target, in_flight):
    # tritonclient and perf_analyzer keep many calls in flight on ONE channel (one HTTP/2
    # connection). 588 KiB in and out per call (one 1x3x224x224 FP32 image's worth), each
    # of `in_flight` concurrent callers making 3 calls: every call answered, equal to its input.
    import asyncio

    import tritonclient.grpc.aio as grpcaio

    values = np.arange(3 * 224 * 224, dtype=np.float32).reshape(1, -1)

    async def go():
        client = grpcaio.InferenceServerClient(url=target.grpc_target)
        failures = []
        answered = 0

        async def caller(slot):
            nonlocal answered
            for i in range(3):
                infer_input = grpcclient.InferInput("INPUT0", list(values.shape), "FP32")
                infer_input.set_data_from_numpy(values)
                try:
                    result = await client.infer("identity_fp32", [infer_input], request_id=f"{slot}-{i}",
                                                client_timeout=60)
                except InferenceServerException as e:
                    failures.append(f"{e.status()}: {e.message()}")
                    continue
                assert result.get_response().id == f"{slot}-{i}"
                assert np.array_equal(result.as_numpy("OUTPUT0"), values)
                answered += 1

        try:
            await asyncio.gather(*(caller(s) for s in range(in_flight)))
        finally:
            await client.close()
        return answered, failures

    answered, failures = asyncio.run(go())
    assert failures == []
    assert answered == in_flight * 3


def _fp32(name, rows, cols):
    infer_input = grpcclient.InferInput(name, [rows, cols], "FP32")
    infer_input.set_data_from_numpy(np.arange(rows * cols, dtype=np.float32).reshape(rows, cols))
    return infer_input


def test_model_config(ours_extensions):
    # Ours only: the anchor serves no ModelConfig. Decoded as Triton's ModelConfig message.
    from tritonclient.grpc import model_config_pb2

    with grpcclient.InferenceServerClient(url=ours_extensions.grpc_target) as client:
        config = client.get_model_config("versioned").config
        assert (config.name, config.platform, config.backend, config.max_batch_size) == (
            "versioned", "onnxruntime_onnx", "onnxruntime", 0)
        fp32 = model_config_pb2.TYPE_FP32
        assert [(t.name, t.data_type, list(t.dims)) for t in config.input] == [("INPUT0", fp32, [-1, -1])]
        assert [(t.name, t.data_type, list(t.dims)) for t in config.output] == [("OUTPUT0", fp32, [-1, -1])]
        assert config.WhichOneof("scheduling_choice") is None
        assert config.version_policy.WhichOneof("policy_choice") == "all"
        assert client.get_model_config("versioned", "1").config == config

        batched = client.get_model_config("batched", as_json=True)["config"]
        assert batched["max_batch_size"] == 8
        assert [(t["name"], t["data_type"], t["dims"]) for t in batched["input"]] == [
            ("INPUT0", "TYPE_FP32", ["16"]), ("INPUT1", "TYPE_FP32", ["16"])]
        assert batched["dynamic_batching"] == {"preferred_batch_size": [4, 8], "max_queue_delay_microseconds": "100"}

        with pytest.raises(InferenceServerException) as e:
            client.get_model_config("no_such_model")
        assert e.value.status() == "StatusCode.NOT_FOUND"
        assert "Model with name no_such_model does not exist." in e.value.message()


def test_inference_statistics(ours_extensions):
    # Ours only: the anchor serves no ModelStatistics. This server serves no other test.
    with grpcclient.InferenceServerClient(url=ours_extensions.grpc_target) as client:
        for _ in range(3):
            client.infer("versioned", [_fp32("INPUT0", 1, 2)], model_version="1")
        for _ in range(2):
            client.infer("versioned", [_fp32("INPUT0", 1, 2)])
        wrong = grpcclient.InferInput("INPUT0", [1, 2], "INT32")
        wrong.set_data_from_numpy(np.ones((1, 2), dtype=np.int32))
        with pytest.raises(InferenceServerException):
            client.infer("versioned", [wrong], model_version="1")
        for rows in (3, 1):
            client.infer("batched", [_fp32("INPUT0", rows, 16), _fp32("INPUT1", rows, 16)])

        stats = client.get_inference_statistics("versioned").model_stats
        assert [(s.name, s.version) for s in stats] == [("versioned", "1"), ("versioned", "2")]
        v1, v2 = stats
        for s, ok, failed in ((v1, 3, 1), (v2, 2, 0)):
            assert (s.inference_count, s.execution_count) == (ok, ok)
            i = s.inference_stats
            durations = (i.success, i.fail, i.queue, i.compute_input, i.compute_infer, i.compute_output)
            assert [d.count for d in durations] == [ok, failed, 0, ok, ok, ok]
            assert [(b.batch_size, b.compute_infer.count) for b in s.batch_stats] == [(1, ok)]
            assert s.last_inference > 0
        assert list(client.get_inference_statistics("versioned", "1").model_stats) == [v1]

        every = client.get_inference_statistics().model_stats
        assert sorted(s.name for s in every) == ["batched", "versioned", "versioned"]
        batched = next(s for s in every if s.name == "batched")
        assert (batched.inference_count, batched.execution_count) == (4, 2)
        assert [(b.batch_size, b.compute_infer.count) for b in batched.batch_stats] == [(1, 1), (3, 1)]
        assert batched.inference_stats.queue.count == 2

        with pytest.raises(InferenceServerException) as e:
            client.get_inference_statistics("no_such_model")
        assert e.value.status() == "StatusCode.NOT_FOUND"


def test_load_model_with_config_override(ours_load_override):
    # Ours only: the anchor's load takes no parameters.
    with grpcclient.InferenceServerClient(url=ours_load_override.grpc_target) as client:
        assert client.get_model_config("versioned", as_json=True)["config"].get("max_batch_size", 0) == 0
        override = {"max_batch_size": 2, "instance_group": [{"kind": "KIND_CPU", "count": 3}],
                    "version_policy": {"specific": {"versions": ["1"]}}}
        client.load_model("versioned", config=json.dumps(override))
        config = client.get_model_config("versioned").config
        assert config.max_batch_size == 2
        assert [g.count for g in config.instance_group] == [3]
        assert config.version_policy.WhichOneof("policy_choice") == "specific"
        assert client.get_model_metadata("versioned").versions == ["1"]

        x = np.array([[1.0, 2.5]], dtype=np.float32)
        infer_input = grpcclient.InferInput("INPUT0", [1, 2], "FP32")
        infer_input.set_data_from_numpy(x)

        def answers_as_version_1():
            np.testing.assert_array_equal(client.infer("versioned", [infer_input]).as_numpy("OUTPUT0"), x)

        answers_as_version_1()

        # A bad override, or one with model files, is refused; the model keeps serving as it was.
        refusals = [
            ({"config": json.dumps({"instance_group": [{"count": 0}]})}, "instance_group 'count' must be >= 1"),
            ({"config": json.dumps({"backend": "nope"})}, "unknown backend 'nope'"),
            ({"config": json.dumps(override), "files": {"file:1/model.onnx": b"not a model"}}, "carry model files"),
        ]
        for kwargs, reason in refusals:
            with pytest.raises(InferenceServerException) as e:
                client.load_model("versioned", **kwargs)
            assert e.value.status() == "StatusCode.INVALID_ARGUMENT", kwargs
            assert reason in e.value.message(), e.value.message()
            assert client.get_model_config("versioned").config.max_batch_size == 2
            answers_as_version_1()

        # Without an override the next load reads the folder again: both versions, no batching.
        client.load_model("versioned")
        assert client.get_model_metadata("versioned").versions == ["1", "2"]
        assert client.get_model_config("versioned").config.max_batch_size == 0
