# kserve-ts-keda: KEDA's operator (github.com/kedacore/keda/v2 cmd/operator, built from its
# module zip by scripts/keda-binary.sh), which drives ScaledObjects and scales a workload
# between zero and one, for the one-node cluster's KEDA suite (test/cluster/node/keda.test.ts
# deploys it with the release's CRDs and RBAC). A static Go program on the Debian base; runs
# as nobody, its gRPC certificates generated into /certs (--enable-cert-rotation).
ARG BASE=kserve-ts-base:forky
FROM ${BASE}
ARG VERSION=0.0.0
ARG SOURCE=https://github.com/kserve-ts/kserve-ts
ARG KEDA_VERSION=v0.0.0
LABEL org.opencontainers.image.title="kserve-ts-keda" \
      org.opencontainers.image.description="the KEDA ${KEDA_VERSION} operator for the one-node cluster's KEDA suite" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.vendor="kserve-ts" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY keda /keda
USER 65534:65534
ENTRYPOINT ["/keda"]
