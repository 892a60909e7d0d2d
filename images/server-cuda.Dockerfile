# kserve-ts-server-cuda: kserve-ts-server plus onnxruntime's CUDA execution provider and the
# CUDA 13 runtime libraries from PyPI wheels (scripts/install-cuda-ep.sh). A separate file on
# top of the server image so the 2.2 GB of libraries are a build context of their own and
# not sent with every other image's.
#
# The driver (libcuda.so.1) is not in the image: the node's NVIDIA container runtime mounts
# it. The provider libraries are linked into the binding's folder, the only place onnxruntime
# looks for them; the CUDA libraries are found through LD_LIBRARY_PATH. Without a GPU,
# `--execution_providers cuda,cpu` runs on the CPU with one warning that says why.
ARG SERVER=kserve-ts-server:0.0.0
FROM ${SERVER}
LABEL org.opencontainers.image.title="kserve-ts-server-cuda" \
      org.opencontainers.image.description="kserve-ts-server with the onnxruntime CUDA execution provider (CUDA 13, cuDNN 9; needs an NVIDIA driver >= R580)"
COPY . /
ENV LD_LIBRARY_PATH=/opt/kserve-ts/cuda/lib \
    NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility
