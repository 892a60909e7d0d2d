"""Transformer interop (issue 17), the other way round: our TS transformer
(examples/transformer/iris-transformer.ts, kserve-ts in transformer mode) in front of KServe's Python predictor
(the anchor), over V1, V2 REST and gRPC: the same answers as KServe's Python transformer
in front of the same predictor (Python to Python).
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import pytest

import harness
from harness import MODEL_IRIS as MODEL, TRANSFORMER_PROTOCOLS, ServerProcess
from test_transformer_interop import ROWS_MM, _assert_close, _outputs, _post, _v1, _v2, _v2_body

OURS_TRANSFORMER_START_TIMEOUT_S = 60


@pytest.fixture(scope="session")
def ts_transformers(anchor: ServerProcess, work_dir: Path, request) -> Dict[str, ServerProcess]:
    """protocol -> our transformer in front of the anchor predictor."""
    started: Dict[str, ServerProcess] = {}
    for protocol in TRANSFORMER_PROTOCOLS:
        host = anchor.grpc_target if protocol == "grpc-v2" else f"127.0.0.1:{anchor.http_port}"
        server = harness.kserve_ts_transformer(MODEL, host, protocol, work_dir, f"anchor-{protocol}")
        request.addfinalizer(server.stop)
        started[protocol] = server.launch()
    for server in started.values():
        server.wait_ready(OURS_TRANSFORMER_START_TIMEOUT_S)
    return started


def test_v1_ts_transformer_same_answers_as_python(ts_transformers, python_transformers) -> None:
    reference = _v1(python_transformers[("anchor", "v1")], ROWS_MM)
    assert reference.status_code == 200, reference.text
    ours = _v1(ts_transformers["v1"], ROWS_MM)
    assert ours.status_code == 200, ours.text
    assert ours.json() == reference.json()


@pytest.mark.parametrize("protocol", ["v2", "grpc-v2"])
def test_v2_ts_transformer_same_answers_as_python(ts_transformers, python_transformers,
                                                  protocol: str) -> None:
    reference = _outputs(_v2(python_transformers[("anchor", protocol)], ROWS_MM))
    ours = _outputs(_v2(ts_transformers[protocol], ROWS_MM))
    assert sorted(ours) == sorted(reference) == ["probabilities", "species"]
    for name in ours:
        assert {k: ours[name][k] for k in ("datatype", "shape")} == \
            {k: reference[name][k] for k in ("datatype", "shape")}, name
    assert ours["species"]["data"] == reference["species"]["data"]
    _assert_close(ours["probabilities"]["data"], reference["probabilities"]["data"],
                  f"{protocol}: TS transformer vs Python transformer")


@pytest.mark.parametrize("protocol", ["v2", "grpc-v2"])
def test_v2_ts_transformer_request_id_round_trip(ts_transformers, protocol: str) -> None:
    body = {**_v2_body("measurements_mm", ROWS_MM[:1]), "id": f"interop-ts-{protocol}"}
    response = _post(f"{ts_transformers[protocol].url}/v2/models/{MODEL}/infer", body)
    assert response.status_code == 200, response.text
    assert response.json()["id"] == f"interop-ts-{protocol}"


@pytest.mark.parametrize("protocol", TRANSFORMER_PROTOCOLS)
def test_bad_input_is_refused_alike(ts_transformers, python_transformers, protocol: str) -> None:
    """Refused on both sides with a 400 and an error body. Over V2 the refusal is the
    transformers' own preprocess on both sides, worded alike, so the bodies are equal; over V1
    kserve-ts checks the instances against the declared input shape before preprocess runs
    (its own wording), so only the status and the body's form are compared there."""
    bodies = []
    for server in (ts_transformers[protocol], python_transformers[("anchor", protocol)]):
        if protocol == "v1":
            response = _v1(server, [[68, 28, 48]])
        else:
            response = _post(f"{server.url}/v2/models/{MODEL}/infer",
                             {"inputs": [{"name": "measurements_mm", "shape": [1, 4], "datatype": "FP32",
                                          "data": [-1, 28, 48, 14]}]})
        assert response.status_code == 400, f"{server.name}: {response.status_code} {response.text}"
        assert isinstance(response.json().get("error"), str), server.name
        bodies.append(response.json())
    if protocol != "v1":
        assert bodies[0] == bodies[1]
