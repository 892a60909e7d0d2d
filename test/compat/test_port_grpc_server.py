"""Port of KServe's python/kserve/test/test_grpc_server.py (written from kserve 0.20's; run on the anchor's release): ModelInfer on a
real gRPC channel instead of grpc_testing, with the same expected responses (compared as
MessageToDict with proto field names, as the anchor's tests do).

The anchor's test model turns five inputs into five flattened outputs; here each datatype
goes through its identity model, so shapes stay [2, 4]. Its FP16-output case (FP32 typed
contents in, FP16 out, forcing raw outputs) has no counterpart among the fixture models and
is not ported.
"""

from __future__ import annotations

import base64

import grpc
import numpy as np
import pytest
from google.protobuf.json_format import MessageToDict
from kserve.protocol.grpc import grpc_predict_v2_pb2 as pb
from kserve.protocol.grpc import grpc_predict_v2_pb2_grpc as pb_grpc
from kserve.protocol.infer_type import InferResponse, serialize_byte_tensor

import known_differences

# (datatype, contents field, values) as in the anchor's test_grpc_inputs.
TYPED = [
    ("FP32", "fp32_contents", [6.8, 2.8, 4.8, 1.4, 6.0, 3.4, 4.5, 1.6], np.float32),
    ("INT32", "int_contents", [6, 2, 4, 1, 6, 3, 4, 1], np.int32),
    ("BYTES", "bytes_contents", [b"Cat", b"Dog", b"Wolf", b"Cat", b"Dog", b"Wolf", b"Dog", b"Wolf"], np.object_),
    ("UINT8", "uint_contents", [6, 2, 4, 1, 6, 3, 4, 1], np.uint8),
    ("BOOL", "bool_contents", [True, False, True, False, True, False, True, False], np.bool_),
]


@pytest.fixture
def stub(target):
    channel = grpc.insecure_channel(target.grpc_target)
    yield pb_grpc.GRPCInferenceServiceStub(channel)
    channel.close()


def as_dict(message):
    return MessageToDict(message, preserving_proto_field_name=True)


def _json_contents(field, values):
    # MessageToDict writes bytes as base64 and float32 values at float32 precision.
    if field == "bytes_contents":
        return [base64.b64encode(v).decode() for v in values]
    return values


@pytest.mark.parametrize("datatype,field,values,dtype", TYPED, ids=[t[0] for t in TYPED])
def test_grpc_inputs(stub, datatype, field, values, dtype):
    model = f"identity_{datatype.lower()}"
    request = pb.ModelInferRequest(model_name=model, id="123", inputs=[
        {"name": "INPUT0", "shape": [2, 4], "datatype": datatype, "contents": {field: values}}])
    response = stub.ModelInfer(request, timeout=30)
    assert as_dict(response) == {
        "model_name": model,
        "id": "123",
        "outputs": [{"name": "OUTPUT0", "datatype": datatype, "shape": ["2", "4"],
                     "contents": {field: _json_contents(field, values)}}],
    }


def _raw(datatype, values, dtype):
    array = np.array(values, dtype=dtype)
    return serialize_byte_tensor(array).item() if datatype == "BYTES" else array.tobytes()


@pytest.mark.parametrize("datatype,field,values,dtype", TYPED, ids=[t[0] for t in TYPED])
def test_grpc_raw_inputs(target, stub, datatype, field, values, dtype):
    """Raw inputs in, raw outputs out."""
    model = f"identity_{datatype.lower()}"
    raw = _raw(datatype, values, dtype)
    request = pb.ModelInferRequest(model_name=model, id="123", raw_input_contents=[raw], inputs=[
        {"name": "INPUT0", "shape": [2, 4], "datatype": datatype}])
    response = stub.ModelInfer(request, timeout=30)
    # Both servers give raw outputs their size, as the anchor's own test expects.
    output = {"name": "OUTPUT0", "datatype": datatype, "shape": ["2", "4"],
              "parameters": {"binary_data_size": {"int64_param": str(len(raw))}}}
    assert as_dict(response) == {
        "model_name": model,
        "id": "123",
        "outputs": [output],
        "raw_output_contents": [base64.b64encode(raw).decode()],
    }
    decoded = InferResponse.from_grpc(response).outputs[0].as_numpy()
    assert np.array_equal(decoded, np.array(values, dtype=dtype).reshape(2, 4))


def test_grpc_raw_outputs_carry_binary_data_size(ours):
    # The anchor's expected responses give each raw output parameters.binary_data_size.
    channel = grpc.insecure_channel(ours.grpc_target)
    raw = np.arange(8, dtype=np.float32).tobytes()
    response = pb_grpc.GRPCInferenceServiceStub(channel).ModelInfer(pb.ModelInferRequest(
        model_name="identity_fp32", raw_input_contents=[raw],
        inputs=[{"name": "INPUT0", "shape": [2, 4], "datatype": "FP32"}]), timeout=30)
    channel.close()
    assert as_dict(response)["outputs"][0].get("parameters") == {"binary_data_size": {"int64_param": "32"}}


def test_grpc_fp16_input(target, stub):
    values = np.array([6.8, 2.8, 4.8, 1.4, 6.0, 3.4, 4.5, 1.6], dtype=np.float16)
    request = pb.ModelInferRequest(model_name="identity_fp16", id="123", raw_input_contents=[values.tobytes()],
                                   inputs=[{"name": "INPUT0", "shape": [2, 4], "datatype": "FP16"}])
    response = stub.ModelInfer(request, timeout=30)
    output = {"name": "OUTPUT0", "datatype": "FP16", "shape": ["2", "4"],
              "parameters": {"binary_data_size": {"int64_param": "16"}}}
    assert as_dict(response) == {
        "model_name": "identity_fp16",
        "id": "123",
        "outputs": [output],
        "raw_output_contents": ["zUaaQc1Emj0ARs1CgERmPg=="],
    }
    assert np.array_equal(InferResponse.from_grpc(response).outputs[0].as_numpy().flatten(), values)


def _add_sub_inputs(with_contents_on_second: bool):
    second = {"name": "INPUT1", "shape": [1, 16], "datatype": "FP32"}
    if with_contents_on_second:
        second["contents"] = {"fp32_contents": [1.0] * 16}
    return [{"name": "INPUT0", "shape": [1, 16], "datatype": "FP32"}, second]


def test_grpc_raw_inputs_with_missing_input_data(stub):
    raw = np.ones(16, dtype=np.float32).tobytes()
    request = pb.ModelInferRequest(model_name="add_sub", id="123", inputs=_add_sub_inputs(False),
                                   raw_input_contents=[raw])
    with pytest.raises(grpc.RpcError) as e:
        stub.ModelInfer(request, timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_grpc_raw_inputs_with_contents_specified(stub):
    raw = np.ones(16, dtype=np.float32).tobytes()
    request = pb.ModelInferRequest(model_name="add_sub", id="123", inputs=_add_sub_inputs(True),
                                   raw_input_contents=[raw, raw])
    with pytest.raises(grpc.RpcError) as e:
        stub.ModelInfer(request, timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
