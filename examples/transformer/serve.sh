#!/usr/bin/env bash
# The iris predictor (ONNX, REST 8085 / gRPC 8086) and the transformer in front of it
# (REST 8080 / gRPC 8081), from a checkout after `npm ci` (which builds dist/):
#   examples/transformer/serve.sh [v1|v2|grpc-v2]
# Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/../.."
protocol="${1:-v2}"
predictor_port=8085
[ "$protocol" = grpc-v2 ] && predictor_port=8086
node dist/bin/kserve-ts.js serve --model_name iris --model_dir examples/models/iris --http_port 8085 --grpc_port 8086 &
predictor=$!
trap 'kill "$predictor" 2>/dev/null || true' EXIT
node --import tsx dist/bin/kserve-ts.js serve --model_name iris \
  --model_module examples/transformer/iris-transformer.ts \
  --predictor_host "127.0.0.1:$predictor_port" --predictor_protocol "$protocol"
