"""Runs KServe's huggingfaceserver (`python -m huggingfaceserver ARGS...`) with its REST and
gRPC servers on loopback (test/compat/kserve_loopback.py). The package comes from the kserve
module zip (huggingfaceserver-src.sh), put on sys.path by the caller (PYTHONPATH).

Usage: python hf_anchor.py --model_dir DIR --model_name m --task text_embedding --http_port N --grpc_port N
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import kserve_loopback  # noqa: E402

kserve_loopback.bind_loopback("127.0.0.1")
sys.argv[0] = "huggingfaceserver"
runpy.run_module("huggingfaceserver", run_name="__main__", alter_sys=True)
