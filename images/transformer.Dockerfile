# kserve-ts-transformer: kserve-ts-server plus examples/transformer (compiled by
# scripts/build-images.sh) as its --model_module: a Model built with predictor options, which
# forwards predict to the predictor named by --predictor_host. An InferenceService's
# spec.transformer adds --model_name, --predictor_host and --http_port (KServe's transformer
# arguments); --predictor_protocol and the other predictor flags go in its args.
ARG SERVER=kserve-ts-server:0.0.0
FROM ${SERVER}
LABEL org.opencontainers.image.title="kserve-ts-transformer" \
      org.opencontainers.image.description="kserve-ts-server running examples/transformer in front of a predictor"
COPY app/ /app/
ENTRYPOINT ["node", "--max-semi-space-size=2", "/app/dist/bin/kserve-ts.js", "serve", "--model_module", "/app/examples/transformer/iris-transformer.js"]
