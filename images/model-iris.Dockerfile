# kserve-ts-model-iris: the iris ONNX classifier as an OCI model image (KServe's modelcar),
# for `storageUri: oci://kserve-ts-model-iris:<version>`. The model sits under /models, the
# modelcar convention; the Debian base brings the shell the sidecar runs
# (`ln -sf /proc/$$/root/models /mnt/models && sleep infinity`). UID 1000 as the server,
# which reads the model through the sidecar's /proc/<pid>/root (same user, or root, needed).
ARG BASE=kserve-ts-base:forky
FROM ${BASE}
ARG VERSION=0.0.0
ARG SOURCE=https://github.com/kserve-ts/kserve-ts
LABEL org.opencontainers.image.title="kserve-ts-model-iris" \
      org.opencontainers.image.description="The iris ONNX classifier as an OCI model image (modelcar): /models/model.onnx" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY models/ /models/
USER 1000:1000
