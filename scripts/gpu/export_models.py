"""GPU machine, run 1 (scripts/gpu/run1.sh): ResNet-50 and BERT-base exported to ONNX with the
machine's torch (random weights: nothing is downloaded), then each timed in torch eager FP32 on
the same GPU, the framework's own figure beside the server's table.

usage: python3 export_models.py OUT_DIR   writes OUT_DIR/resnet50/model.onnx and OUT_DIR/bert/model.onnx
"""
import os, sys, time
import torch

out = sys.argv[1]
torch.manual_seed(0)

def export(model, args, path, **kw):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    t = time.time()
    try:
        torch.onnx.export(model, args, path, opset_version=17, dynamo=False, **kw)
    except Exception as e:  # newer torch may have dropped the TorchScript exporter
        print("legacy exporter failed:", repr(e)[:300], "- trying dynamo=True", flush=True)
        torch.onnx.export(model, args, path, dynamo=True, **kw)
    print(path, os.path.getsize(path), "bytes", round(time.time() - t, 1), "s", flush=True)

import torchvision
resnet = torchvision.models.resnet50(weights=None).eval()
with torch.no_grad():
    export(resnet, (torch.randn(1, 3, 224, 224),), f"{out}/resnet50/model.onnx",
           input_names=["input"], output_names=["output"],
           dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})

from transformers import BertConfig, BertModel
cfg = BertConfig()
bert = BertModel(cfg).eval()
ids = torch.randint(0, cfg.vocab_size, (1, 128))
mask = torch.ones(1, 128, dtype=torch.int64)
with torch.no_grad():
    export(bert, (ids, mask), f"{out}/bert/model.onnx",
           input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state", "pooler_output"],
           dynamic_axes={"input_ids": {0: "batch"}, "attention_mask": {0: "batch"},
                         "last_hidden_state": {0: "batch"}, "pooler_output": {0: "batch"}})

# The framework's figure on the same GPU: torch eager FP32, in process, no server.
torch.backends.cudnn.benchmark = True
dev = torch.device("cuda")
resnet, bert = resnet.to(dev), bert.to(dev)

def ms_per_batch(f, n=30):
    for _ in range(5):
        f()
    torch.cuda.synchronize(); t = time.time()
    for _ in range(n):
        f()
    torch.cuda.synchronize()
    return (time.time() - t) / n * 1000

with torch.no_grad():
    for bs in (1, 8):
        x = torch.randn(bs, 3, 224, 224, device=dev)
        print(f"torch eager fp32 resnet50 b{bs}: {ms_per_batch(lambda: resnet(x)):.2f} ms/batch", flush=True)
        i = torch.randint(0, cfg.vocab_size, (bs, 128), device=dev)
        m = torch.ones(bs, 128, dtype=torch.int64, device=dev)
        print(f"torch eager fp32 bert-base s128 b{bs}: {ms_per_batch(lambda: bert(i, m)):.2f} ms/batch", flush=True)
