"""Transformer interop (issue 17): KServe's Python transformer (transformer_anchor.py, a
`kserve.Model` forwarding through kserve's PredictorConfig) in front of kserve-ts
serving the iris ONNX model, and in front of the anchor predictor serving the same file
(the Python-to-Python reference). Over V1, V2 REST and gRPC between transformer and
predictor, the client-visible answers must be the same, and must be what the predictor
alone answers for the converted inputs.
"""

from __future__ import annotations

import math
from typing import Dict, List

import pytest
import requests

from harness import MODEL_IRIS as MODEL, TRANSFORMER_PROTOCOLS, ServerProcess

PROTOCOLS = TRANSFORMER_PROTOCOLS
PREDICTORS = ["anchor", "ours"]
SPECIES = ["setosa", "versicolor", "virginica"]
FLOAT_TOLERANCE = 1e-6

# Rows in millimetres: the iris README's example rows (one per species at least), times 10.
ROWS_MM = [
    [68, 28, 48, 14],
    [60, 34, 45, 16],
    [51, 35, 14, 2],
    [63, 33, 60, 25],
    [59, 30, 51, 18],
]


def _post(url: str, body: dict) -> requests.Response:
    return requests.post(url, json=body, timeout=30)


def _v1(server: ServerProcess, rows: List[List[float]]) -> requests.Response:
    return _post(f"{server.url}/v1/models/{MODEL}:predict", {"instances": rows})


def _v2_body(name: str, rows: List[List[float]]) -> dict:
    flat = [v for row in rows for v in row]
    return {"inputs": [{"name": name, "shape": [len(rows), 4], "datatype": "FP32", "data": flat}]}


def _v2(server: ServerProcess, rows: List[List[float]], name: str = "measurements_mm") -> requests.Response:
    return _post(f"{server.url}/v2/models/{MODEL}/infer", _v2_body(name, rows))


def _cm(rows: List[List[float]]) -> List[List[float]]:
    return [[v / 10 for v in row] for row in rows]


def _outputs(response: requests.Response) -> Dict[str, dict]:
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["model_name"] == MODEL
    return {o["name"]: o for o in body["outputs"]}


def _assert_close(a: List[float], b: List[float], what: str) -> None:
    assert len(a) == len(b), f"{what}: {len(a)} values vs {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        assert math.isclose(x, y, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE), f"{what}[{i}]: {x} vs {y}"


def test_v1_python_transformer_same_answers(python_transformers, anchor: ServerProcess) -> None:
    # The reference: the anchor predictor alone, on the inputs the transformer forwards.
    direct = _v1(anchor, _cm(ROWS_MM))
    assert direct.status_code == 200, direct.text
    expected = [SPECIES[label] for label in direct.json()["predictions"]]
    assert set(expected) == set(SPECIES)  # the rows cover every class
    for role in PREDICTORS:
        answer = _v1(python_transformers[(role, "v1")], ROWS_MM)
        assert answer.status_code == 200, f"{role}: {answer.text}"
        assert answer.json() == {"predictions": expected}, role


@pytest.mark.parametrize("protocol", ["v2", "grpc-v2"])
def test_v2_python_transformer_same_answers(python_transformers, anchor: ServerProcess,
                                            protocol: str) -> None:
    direct = _outputs(_v2(anchor, _cm(ROWS_MM), name="input"))
    probabilities = direct["probabilities"]["data"]
    expected_species = [SPECIES[label] for label in direct["label"]["data"]]
    answers = {role: _outputs(_v2(python_transformers[(role, protocol)], ROWS_MM)) for role in PREDICTORS}
    for role, outputs in answers.items():
        assert sorted(outputs) == ["probabilities", "species"], role
        assert outputs["species"]["datatype"] == "BYTES"
        assert outputs["species"]["shape"] == [len(ROWS_MM)]
        assert outputs["species"]["data"] == expected_species, role
        assert outputs["probabilities"]["shape"] == [len(ROWS_MM), 3]
        assert outputs["probabilities"]["datatype"] == "FP32"
        _assert_close(outputs["probabilities"]["data"], probabilities, f"{role} {protocol} probabilities")
    _assert_close(answers["ours"]["probabilities"]["data"], answers["anchor"]["probabilities"]["data"],
                  f"{protocol}: behind ours vs behind the anchor")


@pytest.mark.parametrize("protocol", ["v2", "grpc-v2"])
def test_v2_request_id_round_trip(python_transformers, protocol: str) -> None:
    """A V2 request's id goes through the transformer and either predictor and back."""
    ids = {}
    for role in PREDICTORS:
        body = {**_v2_body("measurements_mm", ROWS_MM[:1]), "id": f"interop-{role}-{protocol}"}
        response = _post(f"{python_transformers[(role, protocol)].url}/v2/models/{MODEL}/infer", body)
        assert response.status_code == 200, response.text
        ids[role] = response.json()["id"]
    assert ids == {role: f"interop-{role}-{protocol}" for role in PREDICTORS}

