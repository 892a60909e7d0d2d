# kserve-ts-metrics-server: metrics-server (sigs.k8s.io/metrics-server, built from its module
# zip by scripts/metrics-server-binary.sh), the resource metrics API (metrics.k8s.io) that an
# HPA's cpu and memory targets read, for the one-node cluster's autoscaling suite
# (test/cluster/node/autoscaling.test.ts deploys it). A static Go program on the Debian base;
# runs as nobody, its self-signed serving certificate written under --cert-dir.
ARG BASE=kserve-ts-base:forky
FROM ${BASE}
ARG VERSION=0.0.0
ARG SOURCE=https://github.com/kserve-ts/kserve-ts
ARG METRICS_SERVER_VERSION=v0.0.0
LABEL org.opencontainers.image.title="kserve-ts-metrics-server" \
      org.opencontainers.image.description="metrics-server ${METRICS_SERVER_VERSION} for the one-node cluster's autoscaling suite" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.vendor="kserve-ts" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY metrics-server /usr/local/bin/metrics-server
USER 65534:65534
ENTRYPOINT ["/usr/local/bin/metrics-server"]
