"""Session fixtures: a real `kserve-ts serve` and the anchor (KServe's Python ModelServer)
on free loopback ports, each serving a temp copy of the same fixture models.

Both are started lazily, the first time a test asks for them, and stopped at the end of the
session. A server that does not become ready fails the session with its captured log.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Callable, Dict, Iterator

import pytest

import harness
from harness import ServerProcess

OURS_START_TIMEOUT_S = 60
ANCHOR_START_TIMEOUT_S = 120  # imports kserve, fastapi, pandas and onnxruntime on 2 busy cores
TRANSFORMER_START_TIMEOUT_S = 180  # six Python servers importing kserve side by side on 2 cores


@pytest.fixture(scope="session")
def work_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="kserve-ts-compat-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def model_repository(work_dir: Path) -> Path:
    repo = harness.make_repository(harness.MODELS)
    target = work_dir / "models"
    shutil.move(str(repo), target)
    return target


def _serve(make: Callable[[], ServerProcess], timeout_s: float, request) -> ServerProcess:
    """Starts make()'s server; once more on fresh ports if another process took a port
    between free_port() and the bind."""
    server = make()
    try:
        server.start(timeout_s)
    except RuntimeError:
        if "address already in use" not in server.log().lower() and "eaddrinuse" not in server.log().lower():
            raise
        server = make()
        server.start(timeout_s)
    request.addfinalizer(server.stop)
    return server


@pytest.fixture(scope="session")
def ours(model_repository: Path, work_dir: Path, request) -> ServerProcess:
    """kserve-ts serving every model of harness.MODELS (REST and gRPC)."""
    return _serve(lambda: harness.kserve_ts(model_repository, work_dir), OURS_START_TIMEOUT_S, request)


@pytest.fixture(scope="session")
def anchor(model_repository: Path, work_dir: Path, request) -> ServerProcess:
    """KServe's ModelServer (the release of the virtualenv: 0.21 by default, test/compat/venv.sh) serving the same models through anchor_server.OnnxModel."""
    return _serve(lambda: harness.anchor(model_repository, work_dir), ANCHOR_START_TIMEOUT_S, request)


@pytest.fixture(scope="session")
def ours_with_failed_model(work_dir: Path, request) -> ServerProcess:
    """kserve-ts with one good model and one that fails to load (BF16, which
    onnxruntime-node rejects): the failed model is known but never ready, like the anchor
    tests' never-loaded model. Such a server is not ready: wait for the good model instead."""
    repo = harness.make_repository({
        "identity_fp32": harness.MODELS["identity_fp32"],
        "never_ready": harness.FIXTURES / "identity_bf16.onnx",
    })
    request.addfinalizer(lambda: shutil.rmtree(repo, ignore_errors=True))

    def make() -> ServerProcess:
        server = harness.kserve_ts(repo, work_dir, name="kserve-ts-failed-model")
        server.ready_path = "/v2/models/identity_fp32/ready"
        return server

    return _serve(make, OURS_START_TIMEOUT_S, request)


@pytest.fixture(scope="session")
def ours_extensions(work_dir: Path, request) -> ServerProcess:
    """kserve-ts on harness.make_extensions_repository(), for Triton's model configuration and
    statistics extensions (the anchor has neither): no other test sends it requests, so its
    statistics add up exactly."""
    repo = harness.make_extensions_repository()
    request.addfinalizer(lambda: shutil.rmtree(repo, ignore_errors=True))
    return _serve(lambda: harness.kserve_ts(repo, work_dir, name="kserve-ts-extensions"), OURS_START_TIMEOUT_S, request)


@pytest.fixture(scope="session")
def ours_load_override(work_dir: Path, request) -> ServerProcess:
    """kserve-ts on its own harness.make_extensions_repository(), for load_model with a config
    override (the anchor's load takes no parameters): an override reloads the model, which
    would start ours_extensions' statistics over."""
    repo = harness.make_extensions_repository()
    request.addfinalizer(lambda: shutil.rmtree(repo, ignore_errors=True))
    return _serve(lambda: harness.kserve_ts(repo, work_dir, name="kserve-ts-load-override"), OURS_START_TIMEOUT_S, request)


@pytest.fixture(params=["anchor", "ours"])
def target(request) -> ServerProcess:
    """Runs a test once against each server: the ported anchor tests check that what they
    assert really is the anchor's behaviour, then that kserve-ts does the same."""
    server = request.getfixturevalue(request.param)
    server.assert_alive()  # a server that died earlier fails here, with its log
    return server


@pytest.fixture(scope="session")
def servers(anchor: ServerProcess, ours: ServerProcess) -> Dict[str, ServerProcess]:
    return {"anchor": anchor, "ours": ours}


@pytest.fixture(scope="session")
def python_transformers(anchor: ServerProcess, ours: ServerProcess, work_dir: Path,
                        request) -> Dict[tuple, ServerProcess]:
    """(predictor, protocol) -> a Python transformer forwarding to that predictor. All six
    are launched at once and then waited for: each spends most of its start importing."""
    predictors = {"anchor": anchor, "ours": ours}
    started: Dict[tuple, ServerProcess] = {}
    for role, predictor in predictors.items():
        for protocol in harness.TRANSFORMER_PROTOCOLS:
            host = predictor.grpc_target if protocol == "grpc-v2" else f"127.0.0.1:{predictor.http_port}"
            server = harness.anchor_transformer(harness.MODEL_IRIS, host, protocol, work_dir, f"{role}-{protocol}")
            request.addfinalizer(server.stop)
            started[(role, protocol)] = server.launch()
    for server in started.values():
        server.wait_ready(TRANSFORMER_START_TIMEOUT_S)
    return started


def pytest_terminal_summary(terminalreporter):
    import known_differences

    open_items = [k.key for k in known_differences.KNOWN if not k.documented]
    terminalreporter.write_line(
        f"known differences from the anchor: {len(known_differences.KNOWN)} listed in "
        f"test/compat/known_differences.py, {len(open_items)} not in docs/compatibility.md yet: "
        + ", ".join(open_items)
    )
