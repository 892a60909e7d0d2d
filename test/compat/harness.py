"""Server processes for the compatibility suite: kserve-ts and the anchor, on loopback ports.

Nothing here imports kserve or tritonclient: the anchor runs in its own process, and the
test process must stay free to import either client (see run.sh).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

import requests

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# The KServe release of this virtualenv (test/compat/venv.sh installs one per release).
KSERVE_RELEASE = version("kserve")
FIXTURES = ROOT / "test" / "fixtures" / "models"
KSERVE_TS = ROOT / "dist" / "bin" / "kserve-ts.js"

# The identity models the suite serves, by V2 datatype. BF16 is left out: onnxruntime-node
# cannot load it (see test/fixtures/models/README.md), and a failed model keeps kserve-ts
# from reporting the server ready.
IDENTITY_DATATYPES = [
    "BOOL", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64",
    "FP16", "FP32", "FP64", "BYTES",
]


def identity_model(datatype: str) -> str:
    return f"identity_{datatype.lower()}"


# Model name -> ONNX file. The same files, under the same names, for both servers.
MODELS: Dict[str, Path] = {
    **{identity_model(dt): FIXTURES / f"{identity_model(dt)}.onnx" for dt in IDENTITY_DATATYPES},
    "add_sub": FIXTURES / "add_sub.onnx",
    "mlp_64x8": FIXTURES / "mlp_64x8.onnx",
    "iris": ROOT / "examples" / "models" / "iris" / "model.onnx",
    # Unloaded and loaded again by the repository tests; nothing else uses it.
    "scale2_fp32": FIXTURES / "scale2_fp32.onnx",
}


def make_repository(models: Dict[str, Path]) -> Path:
    """A Triton-style repository in a temp folder: <name>/model.onnx, files copied."""
    root = Path(tempfile.mkdtemp(prefix="kserve-ts-compat-repo-"))
    for name, source in models.items():
        (root / name).mkdir()
        shutil.copyfile(source, root / name / "model.onnx")
    return root


# Triton's model configuration and statistics extensions (test_tritonclient_*.py): a model with
# two versions and one that config.pbtxt batches, served by their own kserve-ts so that the
# statistics count only those tests' requests.
BATCHED_CONFIG = """max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "INPUT1" data_type: TYPE_FP32 dims: [ 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "OUTPUT1" data_type: TYPE_FP32 dims: [ 16 ] } ]
dynamic_batching { preferred_batch_size: [ 4, 8 ] max_queue_delay_microseconds: 100 }
"""


def make_extensions_repository() -> Path:
    """versioned/1 (identity_fp32), versioned/2 (scale2_fp32), batched (add_sub + BATCHED_CONFIG)."""
    root = Path(tempfile.mkdtemp(prefix="kserve-ts-compat-ext-"))
    for version, source in (("1", "identity_fp32"), ("2", "scale2_fp32")):
        (root / "versioned" / version).mkdir(parents=True)
        shutil.copyfile(FIXTURES / f"{source}.onnx", root / "versioned" / version / "model.onnx")
    (root / "batched").mkdir()
    shutil.copyfile(FIXTURES / "add_sub.onnx", root / "batched" / "model.onnx")
    (root / "batched" / "config.pbtxt").write_text(BATCHED_CONFIG)
    return root


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class ServerProcess:
    """A server under test: a child process, its ports and its captured log."""

    name: str
    role: str  # "ours" or "anchor"
    argv: List[str]
    http_port: int
    grpc_port: int
    log_path: Path
    env: Dict[str, str] = field(default_factory=dict)
    # What "ready" means for start(): this GET answers 200 (and the gRPC port accepts).
    ready_path: str = "/v2/health/ready"
    proc: Optional[subprocess.Popen] = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"

    def start(self, timeout_s: float) -> "ServerProcess":
        return self.launch().wait_ready(timeout_s)

    def launch(self) -> "ServerProcess":
        """Starts the process without waiting: several slow starters (the Python servers)
        then start side by side, and wait_ready() waits for each."""
        log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            self.argv,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **self.env},
            start_new_session=True,
        )
        log.close()
        return self

    def wait_ready(self, timeout_s: float) -> "ServerProcess":
        try:
            self._wait_ready(timeout_s)
        except Exception:
            self.stop()
            raise
        return self

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with code {self.proc.returncode} before it was ready.\n"
                    f"command: {' '.join(self.argv)}\n--- log ---\n{self.log()}"
                )
            try:
                r = requests.get(f"{self.url}{self.ready_path}", timeout=2)
                last = f"GET {self.ready_path} -> {r.status_code} {r.text[:200]}"
                if r.status_code == 200 and _port_open(self.grpc_port):
                    return
            except requests.RequestException as e:
                last = f"GET {self.ready_path} -> {type(e).__name__}"
            time.sleep(0.2)
        raise RuntimeError(
            f"{self.name} was not ready within {timeout_s:.0f}s ({last}).\n"
            f"command: {' '.join(self.argv)}\n--- log ---\n{self.log()}"
        )

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        # The process leads its own session: signal its group so that no child survives.
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        except ProcessLookupError:
            pass

    def assert_alive(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            code = self.proc.returncode
            how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
            raise AssertionError(f"{self.name} died ({how}).\n--- log ---\n{self.log()}")


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def kserve_ts(repository: Path, log_dir: Path, name: str = "kserve-ts") -> ServerProcess:
    if not KSERVE_TS.is_file():
        raise RuntimeError(f"{KSERVE_TS} is missing: run `npm run build` (run.sh does it)")
    http_port, grpc_port = free_port(), free_port()
    argv = [
        "node", str(KSERVE_TS), "serve",
        "--model_repository", str(repository),
        "--http_host", "127.0.0.1",
        "--http_port", str(http_port),
        "--grpc_port", str(grpc_port),
        # Two cores, shared with the anchor: one onnxruntime thread per session.
        "--intra_op_threads", "1",
        "--grace_period_seconds", "2",
        "--log_level", "warn",
    ]
    return ServerProcess(name, "ours", argv, http_port, grpc_port, log_dir / f"{name}.log")


def anchor(repository: Path, log_dir: Path) -> ServerProcess:
    http_port, grpc_port = free_port(), free_port()
    argv = [
        sys.executable, str(HERE / "anchor_server.py"),
        "--model_repository", str(repository),
        "--http_port", str(http_port),
        "--grpc_port", str(grpc_port),
    ]
    # The anchor's per-request trace lines would drown its log; warnings and errors stay.
    env = {"KSERVE_LOGLEVEL": "WARNING", "OMP_NUM_THREADS": "1"}
    return ServerProcess(f"anchor (kserve {KSERVE_RELEASE} ModelServer)", "anchor", argv, http_port, grpc_port,
                         log_dir / "anchor.log", env=env)


# The transformer interop (test_transformer_interop.py): transformers named as the predictor's
# model, as KServe forwards to the model of the transformer's own name.
MODEL_IRIS = "iris"
TRANSFORMER_PROTOCOLS = ["v1", "v2", "grpc-v2"]


def anchor_transformer(model_name: str, predictor_host: str, protocol: str, log_dir: Path,
                       tag: str) -> ServerProcess:
    """KServe's Python transformer (transformer_anchor.py) forwarding to predictor_host over
    protocol (v1, v2 or grpc-v2)."""
    http_port, grpc_port = free_port(), free_port()
    argv = [
        sys.executable, str(HERE / "transformer_anchor.py"),
        "--model_name", model_name,
        "--predictor_host", predictor_host,
        "--predictor_protocol", protocol,
        "--http_port", str(http_port),
        "--grpc_port", str(grpc_port),
    ]
    env = {"KSERVE_LOGLEVEL": "WARNING", "OMP_NUM_THREADS": "1"}
    return ServerProcess(f"anchor transformer ({tag})", "anchor-transformer", argv, http_port,
                         grpc_port, log_dir / f"anchor-transformer-{tag}.log", env=env)


def kserve_ts_transformer(model_name: str, predictor_host: str, protocol: str, log_dir: Path,
                          tag: str) -> ServerProcess:
    """kserve-ts in transformer mode serving examples/transformer/iris-transformer.ts (whose
    pre- and post-processing transformer_anchor.py repeats), forwarding to predictor_host."""
    if not KSERVE_TS.is_file():
        raise RuntimeError(f"{KSERVE_TS} is missing: run `npm run build` (run.sh does it)")
    http_port, grpc_port = free_port(), free_port()
    argv = [
        # tsx loads the .ts module; 'kserve-ts' in it resolves to this checkout's dist/.
        "node", "--import", "tsx", str(KSERVE_TS), "serve",
        "--model_name", model_name,
        "--model_module", str(ROOT / "examples" / "transformer" / "iris-transformer.ts"),
        "--predictor_host", predictor_host,
        "--predictor_protocol", protocol,
        "--http_host", "127.0.0.1",
        "--http_port", str(http_port),
        "--grpc_port", str(grpc_port),
        "--grace_period_seconds", "2",
        "--log_level", "warn",
    ]
    return ServerProcess(f"kserve-ts transformer ({tag})", "ours-transformer", argv, http_port,
                         grpc_port, log_dir / f"kserve-ts-transformer-{tag}.log")
