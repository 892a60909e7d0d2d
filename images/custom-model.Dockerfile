# kserve-ts-custom-model: kserve-ts-server plus examples/custom-model (compiled by
# scripts/build-images.sh) as its --model_module, the way a user's custom-model image is
# built FROM the server: the module sits under /app, so `import ... from 'kserve-ts'` resolves
# to the server's own SDK. The iris model it loads by default is included, so the image runs
# alone; an InferenceService gives --model_dir /mnt/models (its storage URI) instead.
ARG SERVER=kserve-ts-server:0.0.0
FROM ${SERVER}
LABEL org.opencontainers.image.title="kserve-ts-custom-model" \
      org.opencontainers.image.description="kserve-ts-server serving examples/custom-model (iris species from millimetres, TypeScript pre/postprocessing around ONNX)"
COPY app/ /app/
ENTRYPOINT ["node", "--max-semi-space-size=2", "/app/dist/bin/kserve-ts.js", "serve", "--model_module", "/app/examples/custom-model/iris-classifier.js"]
