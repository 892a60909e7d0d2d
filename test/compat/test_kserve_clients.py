"""KServe's own Python clients (`kserve.InferenceRESTClient`, `kserve.InferenceGRPCClient`,
of the anchor's kserve release) against both servers: whatever they assert of the anchor must hold of kserve-ts.
The scenarios of KServe's own client tests are in test_port_inference_client.py; these add
datatypes, binary and raw encodings, requested outputs, metadata and errors.
"""

from __future__ import annotations

import asyncio

import grpc
import httpx
import numpy as np
import pytest
from kserve import InferenceGRPCClient, InferenceRESTClient, InferInput, InferRequest, RESTConfig
from kserve.errors import UnsupportedProtocol
from kserve.protocol.grpc import grpc_predict_v2_pb2 as pb
from kserve.protocol.grpc import grpc_predict_v2_pb2_grpc as pb_grpc
from kserve.protocol.infer_type import RequestedOutput
from kserve.protocol.rest.v2_datamodels import ModelMetadataResponse

import known_differences

FP32_ROWS = [[1.5, -2.25, 3.0], [0.125, 0.0, -7.5]]


def rest(target, protocol, call):
    """Runs `call(client, base_url)` with a fresh REST client on its own event loop."""

    async def go():
        config = RESTConfig(protocol=protocol, timeout=30)
        async with InferenceRESTClient(config=config) as client:
            return await call(client, target.url)

    return asyncio.run(go())


def grpc_call(target, call):
    async def go():
        async with InferenceGRPCClient(target.grpc_target, timeout=30, retries=0) as client:
            return await call(client)

    return asyncio.run(go())


# ---- REST: readiness (the rest of the client's health calls: test_port_inference_client.py) ----

def test_rest_is_model_ready_unknown_model(target):
    # V2: any non-2xx means "not ready". V1: only 503 does; 404 raises.
    assert rest(target, "v2", lambda c, url: c.is_model_ready(url, "no_such_model")) is False
    with pytest.raises(httpx.HTTPStatusError) as e:
        rest(target, "v1", lambda c, url: c.is_model_ready(url, "no_such_model"))
    assert e.value.response.status_code == 404
    assert "Model with name no_such_model does not exist." in str(e.value)


# ---- REST: inference ----

def test_rest_v1_predict(target):
    res = rest(target, "v1", lambda c, url: c.infer(url, {"instances": FP32_ROWS}, model_name="identity_fp32"))
    assert res == {"predictions": FP32_ROWS}
    res = rest(target, "v1", lambda c, url: c.infer(url, {"inputs": FP32_ROWS}, model_name="identity_fp32"))
    assert res == {"predictions": FP32_ROWS}


def test_rest_v1_predict_bytes(target):
    rows = [["cat", "dög"], ["", "🐟"]]
    res = rest(target, "v1", lambda c, url: c.infer(url, {"instances": rows}, model_name="identity_bytes"))
    assert res == {"predictions": rows}


@pytest.mark.parametrize("datatype,values", [
    ("FP32", np.array(FP32_ROWS, dtype=np.float32)),
    ("INT64", np.array([[-(2**40), 7], [0, 2**40]], dtype=np.int64)),
    ("BOOL", np.array([[True, False], [False, True]])),
    ("BYTES", np.array([["a", "héllo"], ["", "z"]], dtype=np.object_)),
])
@pytest.mark.parametrize("binary", [False, True], ids=["json", "binary"])
def test_rest_v2_infer_request(target, datatype, values, binary):
    model = f"identity_{datatype.lower()}"
    infer_input = InferInput(name="INPUT0", shape=list(values.shape), datatype=datatype)
    infer_input.set_data_from_numpy(values, binary_data=binary)
    request = InferRequest(model_name=model, infer_inputs=[infer_input], request_id="r-1",
                           parameters={"binary_data_output": binary})
    res = rest(target, "v2", lambda c, url: c.infer(url, request, model_name=model))
    assert res.id == "r-1"
    out = res.outputs[0].as_numpy()
    if datatype == "BYTES":
        decoded = [v.decode() if isinstance(v, bytes) else v for v in out.flatten()]
        assert decoded == list(values.flatten())
    else:
        np.testing.assert_array_equal(out, values)


def test_rest_v2_fp16_binary_in_and_out(target):
    values = np.array([[1.1, 2.22], [3.345, 4.34343]], dtype=np.float16)
    infer_input = InferInput(name="INPUT0", shape=[2, 2], datatype="FP16")
    infer_input.set_data_from_numpy(values, binary_data=True)
    request = InferRequest(model_name="identity_fp16", infer_inputs=[infer_input],
                           request_id="fp16", parameters={"binary_data_output": True})
    res = rest(target, "v2", lambda c, url: c.infer(url, request, model_name="identity_fp16"))
    assert res.outputs[0].datatype == "FP16"
    np.testing.assert_array_equal(res.outputs[0].as_numpy(), values)


def test_rest_v2_fp16_json_output_is_refused(target):
    # FP16 cannot travel as JSON: asking for a JSON FP16 output is a 400 on both servers.
    values = np.array([[1.5, 2.5]], dtype=np.float16)
    infer_input = InferInput(name="INPUT0", shape=[1, 2], datatype="FP16")
    infer_input.set_data_from_numpy(values, binary_data=True)
    request = InferRequest(model_name="identity_fp16", infer_inputs=[infer_input])
    with pytest.raises(httpx.HTTPStatusError) as e:
        rest(target, "v2", lambda c, url: c.infer(url, request, model_name="identity_fp16"))
    assert e.value.response.status_code == 400


def test_rest_v2_requested_outputs_mixed_binary(target):
    a = np.arange(16, dtype=np.float32).reshape(1, 16)
    b = np.full((1, 16), 0.5, dtype=np.float32)
    inputs = []
    for name, arr in (("INPUT0", a), ("INPUT1", b)):
        i = InferInput(name=name, shape=[1, 16], datatype="FP32")
        i.set_data_from_numpy(arr, binary_data=False)
        inputs.append(i)
    request = InferRequest(
        model_name="add_sub", infer_inputs=inputs,
        request_outputs=[RequestedOutput("OUTPUT1", {"binary_data": True}),
                         RequestedOutput("OUTPUT0", {"binary_data": False})],
    )
    res = rest(target, "v2", lambda c, url: c.infer(url, request, model_name="add_sub"))
    assert [o.name for o in res.outputs] == ["OUTPUT1", "OUTPUT0"]
    np.testing.assert_array_equal(res.outputs[0].as_numpy(), a - b)
    np.testing.assert_array_equal(res.outputs[1].as_numpy(), a + b)


def test_rest_model_metadata_parses_as_kserve_model(target):
    # InferenceRESTClient has no metadata call; KServe's own response model must accept ours.
    r = httpx.get(f"{target.url}/v2/models/iris", timeout=10)
    assert r.status_code == 200
    meta = ModelMetadataResponse.model_validate(r.json())
    assert meta.name == "iris"
    assert [(t.name, t.datatype, t.shape) for t in meta.inputs] == [("input", "FP32", [-1, 4])]
    assert [(t.name, t.datatype, t.shape) for t in meta.outputs] == [
        ("label", "INT64", [-1]), ("probabilities", "FP32", [-1, 3])]


# ---- REST: errors surface as the client's normal exception ----

def test_rest_unknown_model_raises_http_status_error(target):
    with pytest.raises(httpx.HTTPStatusError) as e:
        rest(target, "v2", lambda c, url: c.infer(
            url, {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [1, 1], "data": [1.0]}]},
            model_name="no_such_model"))
    assert e.value.response.status_code == 404
    assert "Model with name no_such_model does not exist." in str(e.value)
    with pytest.raises(httpx.HTTPStatusError) as e:
        rest(target, "v1", lambda c, url: c.infer(url, {"instances": [[1.0]]}, model_name="no_such_model"))
    assert e.value.response.status_code == 404


def test_rest_bad_shape_raises_http_status_error(target):
    data = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4], "data": [1.0, 2.0, 3.0, 4.0]}]}
    with pytest.raises(httpx.HTTPStatusError) as e:
        rest(target, "v2", lambda c, url: c.infer(url, data, model_name="identity_fp32"))
    assert e.value.response.status_code == 400
    assert "INPUT0" in str(e.value)


# ---- gRPC ----

def test_grpc_health(target):
    assert grpc_call(target, lambda c: c.is_server_live()) is True
    assert grpc_call(target, lambda c: c.is_server_ready()) is True
    assert grpc_call(target, lambda c: c.is_model_ready("identity_fp32")) is True


def test_grpc_model_ready_unknown_model_is_not_found(target):
    with pytest.raises(grpc.aio.AioRpcError) as e:
        grpc_call(target, lambda c: c.is_model_ready("no_such_model"))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


TYPED = [
    ("FP32", [6.8, 2.8, 4.8, 1.4], np.float32),
    ("INT32", [6, -2, 4, 1], np.int32),
    ("INT64", [-(2**60), 2, 4, 2**60], np.int64),
    ("UINT8", [6, 2, 255, 0], np.uint8),
    ("UINT64", [2**64 - 1, 0, 1, 2**63], np.uint64),
    ("BOOL", [True, False, True, False], np.bool_),
    ("FP64", [0.1, -1e300, 1e-300, 2.5], np.float64),
    ("BYTES", [b"Cat", b"Dog", b"Wolf", b""], np.object_),
]


@pytest.mark.parametrize("datatype,flat,dtype", TYPED, ids=[t[0] for t in TYPED])
def test_grpc_infer_typed_contents(target, datatype, flat, dtype):
    model = f"identity_{datatype.lower()}"
    request = InferRequest(model_name=model, request_id="123",
                           infer_inputs=[InferInput("INPUT0", [2, 2], datatype, data=list(flat))])
    res = grpc_call(target, lambda c: c.infer(request))
    assert res.id == "123"
    assert res.model_name == model
    out = res.outputs[0]
    assert (out.name, out.datatype, out.shape) == ("OUTPUT0", datatype, [2, 2])
    # Typed contents in, typed contents out (no raw_output_contents).
    assert out._raw_data is None
    if datatype == "FP32":
        np.testing.assert_allclose(out.data, flat, rtol=1e-6)
    else:
        assert list(out.data) == flat


@pytest.mark.parametrize("datatype,flat,dtype", TYPED, ids=[t[0] for t in TYPED])
def test_grpc_infer_raw_contents(target, datatype, flat, dtype):
    model = f"identity_{datatype.lower()}"
    values = np.array(flat, dtype=dtype).reshape(2, 2)
    infer_input = InferInput("INPUT0", [2, 2], datatype)
    infer_input.set_data_from_numpy(values, binary_data=True)
    request = InferRequest(model_name=model, request_id="123", infer_inputs=[infer_input])
    res = grpc_call(target, lambda c: c.infer(request))
    out = res.outputs[0]
    # Raw inputs in, raw outputs out.
    assert out._raw_data is not None
    np.testing.assert_array_equal(out.as_numpy(), values)


def test_grpc_fp16_raw_in_raw_out(target):
    values = np.array([[6.8, 2.8], [4.8, 1.4]], dtype=np.float16)
    infer_input = InferInput("INPUT0", [2, 2], "FP16")
    infer_input.set_data_from_numpy(values, binary_data=True)
    res = grpc_call(target, lambda c: c.infer(
        InferRequest(model_name="identity_fp16", request_id="1", infer_inputs=[infer_input])))
    np.testing.assert_array_equal(res.outputs[0].as_numpy(), values)


def test_grpc_unknown_model_is_not_found(target):
    request = InferRequest(model_name="no_such_model", infer_inputs=[InferInput("INPUT0", [1, 1], "FP32", data=[1.0])])
    with pytest.raises(grpc.aio.AioRpcError) as e:
        grpc_call(target, lambda c: c.infer(request))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_grpc_bad_shape_is_invalid_argument(target):
    request = InferRequest(model_name="identity_fp32",
                           infer_inputs=[InferInput("INPUT0", [4], "FP32", data=[1.0, 2.0, 3.0, 4.0])])
    with pytest.raises(grpc.aio.AioRpcError) as e:
        grpc_call(target, lambda c: c.infer(request))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_grpc_model_metadata(target):
    async def call(c):
        stub = c._client_stub  # InferenceGRPCClient has no metadata call; use its channel
        return await stub.ModelMetadata(pb.ModelMetadataRequest(name="add_sub"), timeout=30)

    meta = grpc_call(target, call)
    assert meta.name == "add_sub"
    assert [(t.name, t.datatype, list(t.shape)) for t in meta.inputs] == [
        ("INPUT0", "FP32", [-1, 16]), ("INPUT1", "FP32", [-1, 16])]
    assert [(t.name, t.datatype, list(t.shape)) for t in meta.outputs] == [
        ("OUTPUT0", "FP32", [-1, 16]), ("OUTPUT1", "FP32", [-1, 16])]


def test_grpc_repository_rpcs(target):
    """KServe's RepositoryModelUnload/Load with KServe's own proto. The anchor does the work
    but answers INTERNAL (known_differences: grpc-repository-rpcs); kserve-ts answers."""
    known_differences.get("grpc-repository-rpcs")
    model = "scale2_fp32"
    channel = grpc.insecure_channel(target.grpc_target)
    stub = pb_grpc.GRPCInferenceServiceStub(channel)
    try:
        if target.role == "anchor":
            for call, request in (("RepositoryModelUnload", pb.RepositoryModelUnloadRequest(model_name=model)),
                                  ("RepositoryModelLoad", pb.RepositoryModelLoadRequest(model_name=model))):
                with pytest.raises(grpc.RpcError) as e:
                    getattr(stub, call)(request, timeout=30)
                assert e.value.code() == grpc.StatusCode.INTERNAL
            assert stub.ModelReady(pb.ModelReadyRequest(name=model), timeout=30).ready
            return
        unloaded = stub.RepositoryModelUnload(pb.RepositoryModelUnloadRequest(model_name=model), timeout=30)
        assert (unloaded.model_name, unloaded.isUnloaded) == (model, True)
        with pytest.raises(grpc.RpcError) as e:
            stub.ModelReady(pb.ModelReadyRequest(name=model), timeout=30)
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
        loaded = stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name=model), timeout=30)
        assert (loaded.model_name, loaded.isLoaded) == (model, True)
        assert stub.ModelReady(pb.ModelReadyRequest(name=model), timeout=30).ready
        with pytest.raises(grpc.RpcError) as e:
            stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="no_such_model"), timeout=30)
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        channel.close()
