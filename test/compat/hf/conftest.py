"""Session fixtures of the huggingfaceserver differential: KServe's huggingfaceserver
(v0.20.0, Hugging Face backend on the CPU: no vLLM) and `kserve-ts serve` on free loopback
ports, serving the same random-weight BERT encoder (generate_hf_encoders.py), and kserve-ts
serving the matching cross-encoder.

run.sh sets HF_ENCODERS (the generated models) and HF_SERVER_SRC (the folder holding the
huggingfaceserver package). Servers start once per session, side by side.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterator, Tuple

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import harness  # noqa: E402
from harness import ServerProcess  # noqa: E402

EMBED_MODEL = "m"
RERANK_MODEL = "r"
# huggingfaceserver imports torch, transformers and kserve: tens of seconds on 2 busy cores.
HF_START_TIMEOUT_S = 240
OURS_START_TIMEOUT_S = 90


def encoders() -> Path:
    value = os.environ.get("HF_ENCODERS")
    if not value:
        pytest.exit("HF_ENCODERS is not set: run test/compat/hf/run.sh", returncode=4)
    return Path(value)


def hf_server(model_dir: Path, name: str, task: str, log_dir: Path) -> ServerProcess:
    src = os.environ.get("HF_SERVER_SRC")
    if not src:
        pytest.exit("HF_SERVER_SRC is not set: run test/compat/hf/run.sh", returncode=4)
    http_port, grpc_port = harness.free_port(), harness.free_port()
    argv = [
        sys.executable, str(HERE / "hf_anchor.py"),
        "--model_dir", str(model_dir),
        "--model_name", name,
        "--task", task,
        "--backend", "huggingface",
        "--http_port", str(http_port),
        "--grpc_port", str(grpc_port),
        "--disable_log_requests",
    ]
    env = {
        "PYTHONPATH": src,
        "KSERVE_LOGLEVEL": "WARNING",
        "OMP_NUM_THREADS": "1",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    return ServerProcess(f"huggingfaceserver ({task})", "anchor", argv, http_port, grpc_port,
                         log_dir / f"huggingfaceserver-{task}.log", env=env,
                         ready_path=f"/v2/models/{name}/ready")


@pytest.fixture(scope="session")
def servers(request) -> Iterator[Tuple[ServerProcess, ServerProcess]]:
    """(kserve-ts, huggingfaceserver), started side by side."""
    models = encoders()
    work = Path(tempfile.mkdtemp(prefix="kserve-ts-hfdiff-"))
    repo = work / "models"
    shutil.copytree(models / "encoder", repo / EMBED_MODEL, ignore=shutil.ignore_patterns("*.safetensors"))
    shutil.copytree(models / "reranker", repo / RERANK_MODEL, ignore=shutil.ignore_patterns("*.safetensors"))
    ours = harness.kserve_ts(repo, work)
    ours.ready_path = f"/v2/models/{RERANK_MODEL}/ready"
    hf = hf_server(models / "encoder", EMBED_MODEL, "text_embedding", work)
    started = []
    try:
        for server in (hf.launch(), ours.launch()):
            started.append(server)
        ours.wait_ready(OURS_START_TIMEOUT_S)
        hf.wait_ready(HF_START_TIMEOUT_S)
        yield ours, hf
    finally:
        for server in started:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="session")
def ours(servers) -> ServerProcess:
    return servers[0]


@pytest.fixture(scope="session")
def hf(servers) -> ServerProcess:
    return servers[1]
