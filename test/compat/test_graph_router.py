"""Triton's Python clients through kserve-ts's InferenceGraph router (#29).

`tritonclient.grpc` calls `inference.GRPCInferenceService/ModelInfer` on the router, which
routes it over gRPC to kserve-ts's server (raw tensor contents passed as they came), and
`tritonclient.http` sends V2 binary tensors through it. KServe's router speaks neither.

Runs in the tritonclient.grpc pytest process (run.sh): it imports tritonclient.grpc.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

if any(name.startswith("kserve") for name in sys.modules):
    raise RuntimeError("test_graph_router.py must run in a pytest process that does not import kserve (see test/compat/run.sh)")

import tritonclient.grpc as grpcclient  # noqa: E402
import tritonclient.http as httpclient  # noqa: E402

import harness  # noqa: E402
from harness import ServerProcess  # noqa: E402

ROUTER_START_TIMEOUT_S = 60


def _router(ours: ServerProcess, work_dir, name: str, root: dict) -> ServerProcess:
    http_port, grpc_port = harness.free_port(), harness.free_port()
    argv = [
        "node", str(harness.KSERVE_TS), "router",
        "--graph-json", json.dumps({"nodes": {"root": root}}),
        "--http_host", "127.0.0.1",
        "--http_port", str(http_port),
        "--grpc_port", str(grpc_port),
        # The server's gRPC listener is on another port than its REST one.
        "--step_grpc_targets", json.dumps({ours.url: ours.grpc_target}),
        "--drain_seconds", "0",
        "--log_level", "warn",
    ]
    return ServerProcess(f"kserve-ts router ({name})", "ours-router", argv, http_port, grpc_port,
                         work_dir / f"router-{name}.log", ready_path="/readyz")


@pytest.fixture(scope="module")
def routers(ours, work_dir, request):
    step = f"{ours.url}/v2/models/identity_fp32/infer"
    graphs = {
        "sequence": {"routerType": "Sequence", "steps": [{"serviceUrl": step}, {"serviceUrl": step}]},
        "ensemble": {"routerType": "Ensemble", "steps": [{"name": "a", "serviceUrl": step}, {"name": "b", "serviceUrl": step}]},
    }
    out = {}
    for name, root in graphs.items():
        router = _router(ours, work_dir, name, root).start(ROUTER_START_TIMEOUT_S)
        request.addfinalizer(router.stop)
        out[name] = router
    return out


def _values() -> np.ndarray:
    return np.arange(12, dtype=np.float32).reshape(3, 4) / 7


def test_tritonclient_grpc_through_a_sequence(routers):
    client = grpcclient.InferenceServerClient(url=routers["sequence"].grpc_target)
    try:
        assert client.is_server_live()
        assert client.is_server_ready()
        x = grpcclient.InferInput("INPUT0", [3, 4], "FP32")
        x.set_data_from_numpy(_values())
        result = client.infer("identity_fp32", [x], request_id="g-1")
        # tritonclient.grpc sends raw_input_contents; the answer comes back raw, bit for bit.
        assert result.get_response().id == "g-1"
        np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), _values())
    finally:
        client.close()


def test_tritonclient_grpc_through_an_ensemble(routers):
    client = grpcclient.InferenceServerClient(url=routers["ensemble"].grpc_target)
    try:
        x = grpcclient.InferInput("INPUT0", [3, 4], "FP32")
        x.set_data_from_numpy(_values())
        result = client.infer("identity_fp32", [x])
        np.testing.assert_array_equal(result.as_numpy("a/OUTPUT0"), _values())
        np.testing.assert_array_equal(result.as_numpy("b/OUTPUT0"), _values())
    finally:
        client.close()


@pytest.mark.parametrize("binary_output", [True, False])
def test_tritonclient_http_binary_through_a_sequence(routers, binary_output):
    client = httpclient.InferenceServerClient(url=f"127.0.0.1:{routers['sequence'].http_port}")
    try:
        x = httpclient.InferInput("INPUT0", [3, 4], "FP32")
        x.set_data_from_numpy(_values(), binary_data=True)
        out = httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary_output)
        result = client.infer("identity_fp32", [x], outputs=[out])
        np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), _values())
    finally:
        client.close()
