"""Port of KServe's python/kserve/test/test_inference_client.py (written from kserve 0.20's; run on the anchor's release): its
InferenceRESTClient against a real server instead of an in-process ASGI transport.

The anchor's TestModel echoes its first input as `output-0`; identity_int32 echoes INPUT0 as
OUTPUT0. Its NotReadyModel (registered, never loaded) is kserve-ts's model whose load failed
(`ours_with_failed_model`). The explain test becomes "no explainer" (501) on both servers.
Not ported: the graph-endpoint and path-based-routing tests, which mock the HTTP layer and
test only the client; and the no-scheme base URL test (a client-side check).
"""

from __future__ import annotations

import asyncio

import httpx
import numpy as np
import pytest
from kserve import InferenceRESTClient, InferInput, InferRequest, RESTConfig
from kserve.errors import UnsupportedProtocol
from kserve.protocol.infer_type import RequestedOutput

REQUEST_ID = "2ja0ls9j1309"
# Per-call timeouts (KServe's test passes 1.3 s and 2 s to its in-process transport): here a
# bound on a real server's answer that only a stalled call reaches, never a loaded machine.
CALL_TIMEOUT_S = 30.0


def rest(target, protocol, call):
    async def go():
        async with InferenceRESTClient(RESTConfig(protocol=protocol, timeout=30)) as client:
            return await call(client, target.url)

    return asyncio.run(go())


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_is_server_ready(target, protocol):
    if protocol == "v2":
        assert rest(target, protocol, lambda c, url: c.is_server_ready(url, timeout=CALL_TIMEOUT_S)) is True
    else:
        with pytest.raises(UnsupportedProtocol, match="Unsupported protocol v1"):
            rest(target, protocol, lambda c, url: c.is_server_ready(url, timeout=CALL_TIMEOUT_S))


@pytest.mark.parametrize("protocol", ["v1", "v2", "v3"])
def test_is_server_live(target, protocol):
    call = lambda c, url: c.is_server_live(url, timeout=CALL_TIMEOUT_S)  # noqa: E731
    if protocol == "v3":
        with pytest.raises(UnsupportedProtocol, match="Unsupported protocol v3"):
            rest(target, protocol, call)
    else:
        assert rest(target, protocol, call) is True


@pytest.mark.parametrize("protocol", ["v1", "v2", "v3"])
def test_is_model_ready(target, ours_with_failed_model, protocol):
    ready = lambda c, url: c.is_model_ready(url + "/", "identity_int32", timeout=CALL_TIMEOUT_S)  # noqa: E731
    if protocol == "v3":
        with pytest.raises(UnsupportedProtocol, match="Unsupported protocol v3"):
            rest(target, protocol, ready)
        return
    assert rest(target, protocol, ready) is True
    not_ready = lambda c, url: c.is_model_ready(url, "never_ready", timeout=CALL_TIMEOUT_S)  # noqa: E731
    assert rest(ours_with_failed_model, protocol, not_ready) is False


@pytest.mark.parametrize("protocol", ["v1", "v2", "v3"])
def test_infer(target, protocol):
    if protocol == "v1":
        for key in ("instances", "inputs"):
            res = rest(target, protocol, lambda c, url: c.infer(
                url + "/", model_name="identity_int32", data={key: [[1, 2]]}, timeout=CALL_TIMEOUT_S))
            assert res["predictions"] == [[1, 2]]
    elif protocol == "v2":
        data = {
            "id": REQUEST_ID,
            "parameters": {"test-param": "abc"},
            "inputs": [{"name": "INPUT0", "datatype": "INT32", "shape": [2, 2], "data": [[1, 2], [3, 4]],
                        "parameters": {"test-param": "abc"}}],
        }
        res = rest(target, protocol, lambda c, url: c.infer(url + "/", model_name="identity_int32", data=data, timeout=CALL_TIMEOUT_S))
        assert res.outputs[0].data == [1, 2, 3, 4]
        assert res.id == REQUEST_ID

        request = InferRequest(
            model_name="identity_int32", request_id=REQUEST_ID, parameters={"test-param": "abc"},
            infer_inputs=[InferInput(name="INPUT0", datatype="INT32", shape=[2, 2], data=[[1, 2], [3, 4]],
                                     parameters={"test-param": "abc"})],
        )
        res = rest(target, protocol, lambda c, url: c.infer(url + "/", model_name="identity_int32", data=request, timeout=CALL_TIMEOUT_S))
        assert res.outputs[0].data == [1, 2, 3, 4]
        assert res.id == REQUEST_ID
    else:
        with pytest.raises(UnsupportedProtocol, match="Unsupported protocol v3"):
            rest(target, protocol, lambda c, url: c.infer(
                url + "/", model_name="identity_int32", data={"instances": [1, 2]}, timeout=CALL_TIMEOUT_S))

    with pytest.raises(ValueError):  # model_name missing
        rest(target, protocol, lambda c, url: c.infer(url + "/", data={"instances": [1, 2]}, timeout=CALL_TIMEOUT_S))


def _fp16_input():
    infer_input = InferInput(name="INPUT0", datatype="FP16", shape=[2, 2], parameters={"test-param": "abc"})
    infer_input.set_data_from_numpy(np.array([[1.1, 2.22], [3.345, 4.34343]], dtype=np.float16), binary_data=True)
    return infer_input


def test_infer_with_all_binary_data(target):
    # The anchor sends a JSON INT32 input and a binary FP16 input to one echo model, with
    # binary_data_output: here one request per identity model.
    request = InferRequest(
        model_name="identity_int32", request_id=REQUEST_ID,
        infer_inputs=[InferInput(name="INPUT0", datatype="INT32", shape=[2, 2], data=[[1, 2], [3, 4]],
                                 parameters={"test-param": "abc"})],
        parameters={"test-param": "abc", "binary_data_output": True},
    )
    res = rest(target, "v2", lambda c, url: c.infer(url + "/", model_name="identity_int32", data=request, timeout=CALL_TIMEOUT_S))
    assert res.outputs[0].as_numpy().flatten().tolist() == [1, 2, 3, 4]
    assert res.id == REQUEST_ID

    request = InferRequest(model_name="identity_fp16", request_id=REQUEST_ID, infer_inputs=[_fp16_input()],
                           parameters={"test-param": "abc", "binary_data_output": True})
    res = rest(target, "v2", lambda c, url: c.infer(url + "/", model_name="identity_fp16", data=request, timeout=CALL_TIMEOUT_S))
    np.testing.assert_array_equal(res.outputs[0].as_numpy(), request.inputs[0].as_numpy())
    assert res.id == REQUEST_ID


def test_infer_with_binary_data(target):
    # Binary FP16 input, output requested by name. The anchor's test puts
    # {"binary_data_output": True} in the requested output's parameters, where the protocol
    # key is "binary_data": the output comes back as JSON, which FP16 cannot be, so the echo
    # is checked on an INT32 twin and FP16 asks for binary_data.
    request = InferRequest(
        model_name="identity_int32", request_id=REQUEST_ID,
        infer_inputs=[InferInput(name="INPUT0", datatype="INT32", shape=[2, 2], data=[[1, 2], [3, 4]])],
        request_outputs=[RequestedOutput(name="OUTPUT0", parameters={"binary_data_output": True})],
    )
    res = rest(target, "v2", lambda c, url: c.infer(url + "/", model_name="identity_int32", data=request, timeout=CALL_TIMEOUT_S))
    assert res.outputs[0].data == [1, 2, 3, 4]
    assert res.id == REQUEST_ID

    request = InferRequest(model_name="identity_fp16", request_id=REQUEST_ID, infer_inputs=[_fp16_input()],
                           request_outputs=[RequestedOutput(name="OUTPUT0", parameters={"binary_data": True})])
    res = rest(target, "v2", lambda c, url: c.infer(url + "/", model_name="identity_fp16", data=request, timeout=CALL_TIMEOUT_S))
    np.testing.assert_array_equal(res.outputs[0].as_numpy(), request.inputs[0].as_numpy())


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_explain(target, protocol):
    if protocol == "v1":
        with pytest.raises(httpx.HTTPStatusError) as e:
            rest(target, protocol, lambda c, url: c.explain(url, "identity_int32", data={"instances": [[1, 2]]}, timeout=CALL_TIMEOUT_S))
        assert e.value.response.status_code == 501
    else:
        with pytest.raises(UnsupportedProtocol, match="Unsupported protocol v2"):
            rest(target, protocol, lambda c, url: c.explain(url, "identity_int32", data={"inputs": []}, timeout=CALL_TIMEOUT_S))
