"""KServe's own transformer mode: a `kserve.Model` subclass whose default `predict`
forwards to a predictor, served by kserve's ModelServer (0.21, as 0.20). Run as a separate process:

    python transformer_anchor.py --model_name iris --predictor_host 127.0.0.1:PORT \
        --predictor_protocol v1|v2|grpc-v2 --http_port P --grpc_port G [--pass_through]

The pre- and post-processing are examples/transformer/iris-transformer.ts's, step for step
(the checks and their messages, the V2 hop asking for `probabilities` only): clients send
measurements in millimetres, the predictor (the iris ONNX classifier, examples/models/iris)
takes centimetres, and the answer carries species names. Everything else (routing, forwarding to the predictor over V1, V2 REST or gRPC,
error mapping) is kserve's, so this is the Python side the TS transformer is compared with.

kserve (0.20 and 0.21) reads the predictor settings from the PredictorConfig given to ModelServer
(a context variable), not from the Model's constructor; KServe forwards to the predictor's
model of the transformer's own name, so --model_name must be the predictor's model name.
"""

from __future__ import annotations

import argparse
import sys
from typing import Dict, Union

import numpy as np

_ARGS_PARSER = argparse.ArgumentParser(description=__doc__)
_ARGS_PARSER.add_argument("--model_name", required=True)
_ARGS_PARSER.add_argument("--predictor_host", required=True)
_ARGS_PARSER.add_argument("--predictor_protocol", choices=["v1", "v2", "grpc-v2"], required=True)
_ARGS_PARSER.add_argument("--http_port", type=int, required=True)
_ARGS_PARSER.add_argument("--grpc_port", type=int, required=True)
_ARGS_PARSER.add_argument("--host", default="127.0.0.1")
# The benchmark's transformer: kserve's default preprocess/postprocess (identity), so that
# the transformer hop alone is measured.
_ARGS_PARSER.add_argument("--pass_through", action="store_true")
ARGS = _ARGS_PARSER.parse_args()
sys.argv = sys.argv[:1]  # ModelServer parses sys.argv at import; keep ours out of it

import kserve  # noqa: E402
from kserve import InferInput, InferOutput, InferRequest, InferResponse, Model, PredictorConfig  # noqa: E402
from kserve.errors import InvalidInput  # noqa: E402
from kserve.protocol.infer_type import RequestedOutput  # noqa: E402
from kserve_loopback import bind_loopback  # noqa: E402

SPECIES = ["setosa", "versicolor", "virginica"]
MM_INPUT = "measurements_mm"


def _cm(mm) -> np.ndarray:
    array = np.asarray(mm, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 4:
        raise InvalidInput(f"expected rows of 4 measurements, got shape {list(array.shape)}")
    if not np.all((array >= 0) & (array < 10_000)):
        raise InvalidInput("measurements must be millimetres between 0 and 10000")
    return (array / 10).astype(np.float32)


def _species(probabilities: np.ndarray) -> list:
    return [SPECIES[int(i)] for i in np.argmax(probabilities, axis=1)]


class IrisTransformer(Model):
    """V1: {"instances": [[mm x4], ...]} -> {"predictions": [species, ...]} (the predictor's
    V1 answer is its first output, the label). V2: input `measurements_mm` FP32 [n,4] ->
    outputs `species` BYTES [n] and `probabilities` FP32 [n,3]."""

    def __init__(self, name: str):
        super().__init__(name)
        self.ready = True

    async def preprocess(self, payload: Union[Dict, InferRequest], headers: Dict[str, str] = None):
        if isinstance(payload, InferRequest):
            source = next((i for i in payload.inputs if i.name == MM_INPUT), None)
            if source is None:
                raise InvalidInput(f"expected input {MM_INPUT}")
            cm = _cm(source.as_numpy())
            forwarded = InferInput(name="input", shape=list(cm.shape), datatype="FP32")
            forwarded.set_data_from_numpy(cm, binary_data=False)
            return InferRequest(model_name=self.name, infer_inputs=[forwarded], request_id=payload.id,
                                request_outputs=[RequestedOutput("probabilities")])
        if not isinstance(payload.get("instances"), list):
            raise InvalidInput('Expected "instances" to be a list')
        return {"instances": _cm(payload["instances"]).tolist()}

    async def postprocess(self, result, headers: Dict[str, str] = None, response_headers: Dict[str, str] = None):
        if isinstance(result, InferResponse):
            by_name = {o.name: o for o in result.outputs}
            probabilities = by_name["probabilities"].as_numpy().astype(np.float32)
            species = np.array(_species(probabilities), dtype=np.object_)
            out_species = InferOutput(name="species", shape=[len(species)], datatype="BYTES")
            out_species.set_data_from_numpy(species, binary_data=False)
            out_probs = InferOutput(name="probabilities", shape=list(probabilities.shape), datatype="FP32")
            out_probs.set_data_from_numpy(probabilities, binary_data=False)
            return InferResponse(model_name=self.name, infer_outputs=[out_species, out_probs],
                                 response_id=result.id)
        return {"predictions": [SPECIES[int(label)] for label in result["predictions"]]}


class PassThrough(Model):
    """kserve.Model as it comes: forwards every request to the predictor unchanged."""

    def __init__(self, name: str):
        super().__init__(name)
        self.ready = True


def main() -> None:
    bind_loopback(ARGS.host)
    config = PredictorConfig(
        predictor_host=ARGS.predictor_host,
        predictor_protocol=ARGS.predictor_protocol,
        # kserve's gRPC client builds a retry policy with maxAttempts = retries; grpc
        # ignores a policy below 2, so 0 is "no retries" on both transports.
        predictor_request_retries=0,
        predictor_request_timeout_seconds=30,
    )
    server = kserve.ModelServer(
        http_port=ARGS.http_port,
        grpc_port=ARGS.grpc_port,
        enable_grpc=True,
        max_threads=2,
        grace_period=1,
        predictor_config=config,
    )
    model = PassThrough(ARGS.model_name) if ARGS.pass_through else IrisTransformer(ARGS.model_name)
    server.start([model])


if __name__ == "__main__":
    main()
