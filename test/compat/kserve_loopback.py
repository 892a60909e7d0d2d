"""Keeps a kserve ModelServer on one address: kserve binds 0.0.0.0 (REST) and [::] (gRPC)
unconditionally, and the suite's servers listen on loopback only. Shared by the anchor
predictor and the anchor transformer. Changes the listening address and nothing a client
can observe. Import only after sys.argv is trimmed (kserve parses it at import)."""

from __future__ import annotations

import kserve.protocol.grpc.server as kserve_grpc_server
import kserve.protocol.rest.server as kserve_rest_server


def bind_loopback(host: str) -> None:
    rest_config = kserve_rest_server.uvicorn.Config

    class LoopbackConfig(rest_config):
        def __init__(self, *args, **kwargs):
            kwargs["host"] = host
            super().__init__(*args, **kwargs)

    kserve_rest_server.uvicorn.Config = LoopbackConfig

    make_server = kserve_grpc_server.aio.server

    def loopback_server(*args, **kwargs):
        server = make_server(*args, **kwargs)
        add_port = server.add_insecure_port
        server.add_insecure_port = lambda addr: add_port(f"{host}:{addr.rsplit(':', 1)[1]}")
        return server

    kserve_grpc_server.aio.server = loopback_server
