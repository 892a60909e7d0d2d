"""The anchor: KServe's own Python ModelServer serving the fixture ONNX models.

Run as a separate process by conftest.py:

    python anchor_server.py --model_repository DIR --http_port P --grpc_port G

Every sub-folder of DIR holding a `model.onnx` becomes a model of that name, served by
`OnnxModel`, a plain `kserve.Model` that wraps an onnxruntime session. Everything a client
sees on the wire (routes, status codes, error bodies, JSON and binary encodings, gRPC) comes
from the `kserve` package itself; the model only decodes inputs, runs the session and builds
an `InferResponse` the way KServe's own `get_predict_response` does.

The model checks requests against the ONNX signature (input names, datatypes, rank and fixed
dimensions) and raises `InvalidInput`, as a careful KServe model author would: the anchor
leaves that check to model code. Tensor decoding (`as_numpy`) is left to kserve, so its
errors surface exactly as the server reports them.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Optional

import numpy as np
import onnxruntime as ort

# ModelServer parses sys.argv when the module is imported (parse_known_args); keep only
# argv[0] so that our own flags never leak into its configuration.
_ARGS_PARSER = argparse.ArgumentParser(description=__doc__)
_ARGS_PARSER.add_argument("--model_repository", required=True)
_ARGS_PARSER.add_argument("--http_port", type=int, required=True)
_ARGS_PARSER.add_argument("--grpc_port", type=int, required=True)
_ARGS_PARSER.add_argument("--host", default="127.0.0.1")
ARGS = _ARGS_PARSER.parse_args()
sys.argv = sys.argv[:1]

import kserve  # noqa: E402
from kserve import InferOutput, InferRequest, InferResponse, Model, ModelRepository  # noqa: E402
from kserve.errors import InvalidInput  # noqa: E402
from kserve.utils.utils import generate_uuid  # noqa: E402
from kserve_loopback import bind_loopback  # noqa: E402

# ONNX element type (as onnxruntime names it) -> (V2 datatype, numpy dtype).
ONNX_TYPES: Dict[str, tuple] = {
    "tensor(bool)": ("BOOL", np.bool_),
    "tensor(uint8)": ("UINT8", np.uint8),
    "tensor(uint16)": ("UINT16", np.uint16),
    "tensor(uint32)": ("UINT32", np.uint32),
    "tensor(uint64)": ("UINT64", np.uint64),
    "tensor(int8)": ("INT8", np.int8),
    "tensor(int16)": ("INT16", np.int16),
    "tensor(int32)": ("INT32", np.int32),
    "tensor(int64)": ("INT64", np.int64),
    "tensor(float16)": ("FP16", np.float16),
    "tensor(float)": ("FP32", np.float32),
    "tensor(double)": ("FP64", np.float64),
    "tensor(string)": ("BYTES", np.object_),
}


def _dims(shape) -> List[int]:
    """onnxruntime shapes name dynamic dimensions ('batch') or leave them None: both are -1."""
    return [d if isinstance(d, int) else -1 for d in shape]


def _signature(args) -> List[Dict]:
    return [
        {"name": a.name, "datatype": ONNX_TYPES[a.type][0], "shape": _dims(a.shape)}
        for a in args
    ]


class OnnxModel(Model):
    """A KServe Python model over one ONNX file, V1 and V2."""

    def __init__(self, name: str, path: str):
        super().__init__(name)
        self.path = path
        self.session: Optional[ort.InferenceSession] = None

    def load(self) -> bool:
        options = ort.SessionOptions()
        # The CI machine has two cores shared with the other server: keep each session small.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            self.path, sess_options=options, providers=["CPUExecutionProvider"]
        )
        self.inputs = _signature(self.session.get_inputs())
        self.outputs = _signature(self.session.get_outputs())
        self.ready = True
        return self.ready

    def get_input_types(self) -> List[Dict]:
        return self.inputs

    def get_output_types(self) -> List[Dict]:
        return self.outputs

    # -- validation against the ONNX signature (model code's job in KServe) --

    def _check(self, spec: Dict, datatype: str, shape: List[int]) -> None:
        name = spec["name"]
        if datatype != spec["datatype"]:
            raise InvalidInput(
                f"input '{name}': datatype {datatype} does not match the model's {spec['datatype']}"
            )
        want = spec["shape"]
        if len(shape) != len(want) or any(w != -1 and w != s for w, s in zip(want, shape)):
            raise InvalidInput(f"input '{name}': shape {list(shape)} does not match the model's {want}")

    def _run(self, feeds: Dict[str, np.ndarray]) -> List[np.ndarray]:
        names = [o["name"] for o in self.outputs]
        return self.session.run(names, feeds)

    @staticmethod
    def _feed(spec: Dict, array: np.ndarray) -> np.ndarray:
        if spec["datatype"] != "BYTES":
            return array
        # onnxruntime string tensors take str; kserve decodes raw BYTES elements as bytes.
        text = [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in array.flat]
        return np.array(text, dtype=np.object_).reshape(array.shape)

    # -- V2 (REST JSON, REST binary, gRPC) --

    def _predict_v2(self, request: InferRequest) -> InferResponse:
        by_name = {i.name: i for i in request.inputs}
        known = {spec["name"] for spec in self.inputs}
        for name in by_name:
            if name not in known:
                raise InvalidInput(f"unexpected input '{name}' for model '{self.name}'")
        feeds = {}
        for spec in self.inputs:
            infer_input = by_name.get(spec["name"])
            if infer_input is None:
                raise InvalidInput(f"missing input '{spec['name']}' for model '{self.name}'")
            self._check(spec, infer_input.datatype, list(infer_input.shape))
            feeds[spec["name"]] = self._feed(spec, infer_input.as_numpy())
        results = dict(zip((o["name"] for o in self.outputs), self._run(feeds)))

        # All outputs in model order, or the requested ones in request order. kserve's REST
        # encoder also selects requested outputs, but its gRPC encoder does not.
        if request.request_outputs:
            names = []
            for requested in request.request_outputs:
                if requested.name not in results:
                    raise InvalidInput(
                        f"Unexpected inference output '{requested.name}' for model '{self.name}'"
                    )
                names.append(requested.name)
        else:
            names = [o["name"] for o in self.outputs]
        datatypes = {o["name"]: o["datatype"] for o in self.outputs}

        # As kserve.utils.utils.get_predict_response builds it, one output per tensor.
        infer_outputs = []
        for name in names:
            array = results[name]
            if datatypes[name] == "BYTES":
                array = array.astype(np.object_)
            out = InferOutput(name=name, shape=list(array.shape), datatype=datatypes[name])
            out.set_data_from_numpy(array, binary_data=request.use_binary_outputs)
            infer_outputs.append(out)
        return InferResponse(
            model_name=self.name,
            infer_outputs=infer_outputs,
            response_id=request.id if request.id else generate_uuid(),
            use_binary_outputs=request.use_binary_outputs,
            requested_outputs=request.request_outputs,
        )

    # -- V1, the mapping docs/compatibility.md defines for tensor models: instances stacked
    #    along the batch dimension of the single input; with several inputs, row format
    #    (instances are objects keyed by input name) or columnar ("inputs" is an object) --

    def _predict_v1(self, payload: Dict) -> Dict:
        if "instances" in payload:
            instances = payload["instances"]
        elif "inputs" in payload:
            instances = payload["inputs"]
        else:
            raise InvalidInput('Expected "instances" or "inputs" in the request')
        if isinstance(instances, dict) and len(self.inputs) > 1:
            return self._predict_v1_columns(instances)
        if not isinstance(instances, list):
            raise InvalidInput('Expected "instances" to be a list')
        if len(self.inputs) == 1:
            spec = self.inputs[0]
            dtype = ONNX_TYPES[self.session.get_inputs()[0].type][1]
            array = np.array(instances, dtype=dtype)
            self._check(spec, spec["datatype"], list(array.shape))
            feeds = {spec["name"]: self._feed(spec, array)}
        else:
            # Row format: each instance is an object keyed by input name.
            feeds = {}
            for spec, arg in zip(self.inputs, self.session.get_inputs()):
                if not all(isinstance(i, dict) and spec["name"] in i for i in instances):
                    raise InvalidInput(f"every instance needs input '{spec['name']}'")
                array = np.array([i[spec["name"]] for i in instances], dtype=ONNX_TYPES[arg.type][1])
                self._check(spec, spec["datatype"], list(array.shape))
                feeds[spec["name"]] = self._feed(spec, array)
        first = self._run(feeds)[0]
        return {"predictions": first.tolist()}

    def _predict_v1_columns(self, columns: Dict) -> Dict:
        feeds = {}
        for spec, arg in zip(self.inputs, self.session.get_inputs()):
            if spec["name"] not in columns:
                raise InvalidInput(f"missing input '{spec['name']}'")
            array = np.array(columns[spec["name"]], dtype=ONNX_TYPES[arg.type][1])
            self._check(spec, spec["datatype"], list(array.shape))
            feeds[spec["name"]] = self._feed(spec, array)
        return {"predictions": self._run(feeds)[0].tolist()}

    async def predict(self, payload, headers=None):
        if isinstance(payload, InferRequest):
            return self._predict_v2(payload)
        return self._predict_v1(payload)


class OnnxModelRepository(ModelRepository):
    """Loads `<dir>/<name>/model.onnx` on a repository load request, as KServe's runtime
    repositories do (the base class's load is a no-op)."""

    def __init__(self, models_dir: str):
        super().__init__(models_dir)
        self.dir = models_dir

    def load(self, name: str) -> bool:
        path = os.path.join(self.dir, name, "model.onnx")
        if not os.path.isfile(path):
            return False
        model = OnnxModel(name, path)
        model.load()
        self.update(model)
        return model.ready


def main() -> None:
    bind_loopback(ARGS.host)
    repository = OnnxModelRepository(ARGS.model_repository)
    models = []
    for name in sorted(os.listdir(ARGS.model_repository)):
        path = os.path.join(ARGS.model_repository, name, "model.onnx")
        if os.path.isfile(path):
            model = OnnxModel(name, path)
            model.load()
            models.append(model)
    server = kserve.ModelServer(
        http_port=ARGS.http_port,
        grpc_port=ARGS.grpc_port,
        registered_models=repository,
        enable_grpc=True,
        max_threads=2,
        grace_period=1,
    )
    server.start(models)


if __name__ == "__main__":
    main()
