# kserve-ts-traefik: Traefik v3 (github.com/traefik/traefik/v3 cmd/traefik, built from its
# module zip by scripts/traefik-binary.sh), a Gateway API implementation that honours
# HTTPRoute backendRefs weights and header matches, for the one-node cluster's canary suite
# (test/cluster/node/canary.test.ts deploys it with its kubernetesGateway provider, RBAC,
# GatewayClass and the Gateway the controller's HTTPRoutes name). A static Go program on the
# Debian base; runs as nobody, listening on unprivileged ports.
ARG BASE=kserve-ts-base:forky
FROM ${BASE}
ARG VERSION=0.0.0
ARG SOURCE=https://github.com/kserve-ts/kserve-ts
ARG TRAEFIK_VERSION=v0.0.0
LABEL org.opencontainers.image.title="kserve-ts-traefik" \
      org.opencontainers.image.description="Traefik ${TRAEFIK_VERSION} (Gateway API) for the one-node cluster's canary suite" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.vendor="kserve-ts" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY traefik /usr/local/bin/traefik
USER 65534:65534
ENTRYPOINT ["/usr/local/bin/traefik"]
