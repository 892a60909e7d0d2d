# kserve-ts-cuda-base: the Debian base plus onnxruntime's CUDA 13 runtime libraries (cuDNN 9,
# cuBLAS, ...) from PyPI wheels (scripts/install-cuda-ep.sh), in /opt/kserve-ts/cuda/lib.
# kserve-ts-server-cuda is the server target of images/Dockerfile built on this base
# (scripts/build-images.sh), so the 2.2 GB layer sits under the app and survives server changes.
#
# The driver (libcuda.so.1) is not in the image: the node's NVIDIA container runtime mounts
# it. The CUDA libraries are found through LD_LIBRARY_PATH. Without a GPU,
# `--execution_providers cuda,cpu` runs on the CPU with one warning that says why.
ARG BASE=kserve-ts-base:forky
FROM ${BASE}
COPY . /
ENV LD_LIBRARY_PATH=/opt/kserve-ts/cuda/lib \
    NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility
