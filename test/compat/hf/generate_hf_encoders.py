#!/usr/bin/env python3
"""Builds the models of the huggingfaceserver differential (test/compat/hf/): BERT-style
encoders and a cross-encoder built from a config with `transformers` (random weights from a
fixed seed, nothing downloaded), each folder holding both what KServe's huggingfaceserver
loads (config.json, model.safetensors, the tokenizer files) and what kserve-ts loads (the
same tokenizer.json, model.onnx exported from the same weights by torch.onnx.export,
modules.json and 1_Pooling/ as sentence-transformers writes them).

Run through test/compat/hf/generate-hf-encoders.sh (the cached virtualenv, and the cache key).

  encoder/     BertModel, 2 layers, hidden 32: huggingfaceserver's text_embedding task
               (mean pooling under the attention mask, then L2 normalisation), which
               kserve-ts does from modules.json (Pooling mean_tokens + Normalize)
  reranker/    BertForSequenceClassification with one label (a sentence-transformers
               CrossEncoder); kserve-ts answers the sigmoid of its logit
  encoder-base/ (--base only, for the benchmark) BertModel at BERT-base size: 12 layers,
               hidden 768, 12 heads, intermediate 3072 (the tiny vocabulary keeps it at ~85 M
               parameters instead of 110 M; the layers, which cost the time, are BERT-base's)

The tokenizer is the one of the kserve-ts fixtures (test/fixtures/generate_text_encoders.py:
a WordPiece vocabulary trained on a small corpus). The max length is the position table's
(64; 512 for encoder-base) in config.json, tokenizer_config.json and
sentence_bert_config.json alike: huggingfaceserver truncates at max_position_embeddings
(or --max_model_len), kserve-ts at sentence_bert_config's max_seq_length.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import torch
from transformers import BertConfig, BertForSequenceClassification, BertModel

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "fixtures"))
import generate_text_encoders as fixtures  # noqa: E402  (the fixtures' tokenizer)

OPSET = 17  # onnxruntime 1.30 (onnxruntime-node) runs it
SEED = 33

TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, max_position_embeddings=64)
BASE = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072, max_position_embeddings=512)


def write_json(path: Path, doc: object) -> None:
    fixtures.write_json(path, doc)


def bert_config(vocab: int, size: dict, **extra: object) -> BertConfig:
    return BertConfig(vocab_size=vocab, type_vocab_size=2, hidden_act="gelu", pad_token_id=0, layer_norm_eps=1e-12, **size, **extra)


def write_tokenizer(folder: Path, tok, max_length: int) -> None:
    fixtures.write_tokenizer(folder, tok)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["model_max_length"] = max_length
    write_json(folder / "tokenizer_config.json", config)


class LastHidden(torch.nn.Module):
    def __init__(self, model: BertModel) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids, return_dict=True).last_hidden_state


class Logits(torch.nn.Module):
    def __init__(self, model: BertForSequenceClassification) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids, return_dict=True).logits


def export_onnx(module: torch.nn.Module, path: Path, output: str, out_axes: dict[int, str]) -> None:
    """input_ids, attention_mask, token_type_ids INT64 [batch, sequence], as the kserve-ts
    fixtures name them; the TorchScript exporter (no onnxscript needed)."""
    module.eval()
    ids = torch.tensor([[2, 10, 11, 12, 3], [2, 13, 3, 0, 0]], dtype=torch.int64)
    mask = (ids != 0).to(torch.int64)
    types = torch.zeros_like(ids)
    axes = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(
            module,
            (ids, mask, types),
            str(path),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=[output],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes, output: out_axes},
            opset_version=OPSET,
            dynamo=False,
        )


def write_encoder(folder: Path, tok, size: dict) -> None:
    torch.manual_seed(SEED)
    model = BertModel(bert_config(tok.get_vocab_size(), size), add_pooling_layer=False).eval()
    model.save_pretrained(folder)
    max_length = size["max_position_embeddings"]
    write_tokenizer(folder, tok, max_length)
    write_json(folder / "sentence_bert_config.json", {"max_seq_length": max_length, "do_lower_case": False})
    write_json(folder / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ])
    pooling = {"word_embedding_dimension": size["hidden_size"]}
    pooling.update({f"pooling_mode_{m}": m == "mean_tokens" for m in fixtures.POOLING_MODES})
    pooling["include_prompt"] = True
    write_json(folder / "1_Pooling" / "config.json", pooling)
    export_onnx(LastHidden(model), folder / "model.onnx", "last_hidden_state", {0: "batch", 1: "sequence"})


def write_reranker(folder: Path, tok, size: dict) -> None:
    torch.manual_seed(SEED + 1)
    config = bert_config(tok.get_vocab_size(), size, num_labels=1)
    model = BertForSequenceClassification(config).eval()
    model.save_pretrained(folder)
    write_tokenizer(folder, tok, size["max_position_embeddings"])
    export_onnx(Logits(model), folder / "model.onnx", "logits", {0: "batch"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="folder to create (replaced if it exists)")
    parser.add_argument("--base", action="store_true", help="only encoder-base/ (the benchmark's BERT-base-sized encoder)")
    args = parser.parse_args()
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    torch.set_num_threads(1)
    tok = fixtures.train_tokenizer()
    if args.base:
        write_encoder(out / "encoder-base", tok, BASE)
    else:
        write_encoder(out / "encoder", tok, TINY)
        write_reranker(out / "reranker", tok, TINY)
    print(f"wrote {out} (vocabulary of {tok.get_vocab_size()})")


if __name__ == "__main__":
    main()
