"""kserve-ts against KServe's huggingfaceserver on the OpenAI routes, same model on both.

Embeddings: the same requests to both servers, the vectors equal within float32 noise (the
two run the same weights through different kernels: PyTorch eager vs onnxruntime), the same
token counts, the same item shapes. Where the two differ on purpose, the difference is named
in KNOWN_DIFFERENCES below (and in docs/openai.md), and the test checks that it still holds,
so a change on either side shows.

Rerank: huggingfaceserver's Hugging Face backend does not rerank (its create_rerank raises
"not implemented"; only its vLLM backend does), so kserve-ts's scores are compared with a
transformers forward pass of the same cross-encoder (sigmoid of the logit, as
sentence-transformers' CrossEncoder.predict), the tokenizer run as huggingfaceserver runs it.

The Python `openai` client (base64 by default, decoded by the client) gets the same vectors
from both servers.
"""

from __future__ import annotations

import base64
import struct
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest
import requests

from conftest import EMBED_MODEL, RERANK_MODEL, encoders

# Float32 noise between PyTorch and onnxruntime on a 2-layer, 32-wide encoder, after L2
# normalisation: measured differences are around 1e-7; the bounds leave room for other BLAS
# paths but catch any real difference (a wrong pooling or a missed token moves components by
# 1e-2 or more).
ABS_TOL = 1e-5
MIN_COSINE = 0.99999

TEXTS = [
    "hello world",
    "The quick brown fox jumps over the lazy dog.",
    "Café résumé naïve — accents & punctuation!",
    "zyxwvut qqq unknownword",
    "你好世界 and 日本語",
    "tabs\tand\nnewlines\r\n  and   spaces",
    "ÀÉÎÕÜ ñ ç ß ﬁ",
    "don't stop-believing... (really?!)",
    # Longer than the max length (64 tokens): truncated by both.
    " ".join(["sentence embeddings map text to vectors"] * 12),
    "",
]
QUERY = "What is the capital of France?"
DOCUMENTS = [
    "Paris is the capital of France.",
    "Berlin is the capital of Germany.",
    "Cats and dogs are popular pets.",
    " ".join(["the weather in paris is mild in spring"] * 10),
]

# Where huggingfaceserver 0.20.0 (Hugging Face backend) and kserve-ts answer differently, on
# purpose. Each entry is checked below.
KNOWN_DIFFERENCES = {
    "top-level object": "huggingfaceserver answers object 'embedding' and adds 'id' and 'created'; "
                        "kserve-ts answers OpenAI's 'list' without them (the openai clients read neither)",
    "token-id input": "huggingfaceserver refuses token ids (a 500 wrapping its 501 'not supported'); "
                      "kserve-ts embeds them as given",
    "dimensions": "huggingfaceserver ignores 'dimensions' (full vectors); kserve-ts keeps the first N "
                  "and normalises again",
    "usage": "huggingfaceserver's usage (vLLM's UsageInfo) adds completion_tokens: 0 and prompt_tokens_details: null; "
             "kserve-ts answers OpenAI's prompt_tokens and total_tokens only",
    "errors": "huggingfaceserver answers a request its pydantic model rejects with FastAPI's 422 {detail: [...]}, an "
              "unknown model with 404 {error: '<message>'} and an empty input list with a 500; kserve-ts answers "
              "OpenAI's {error: {message, type, param, code}} with 400 / 404, as OpenAI and vLLM's own server do",
    "rerank": "huggingfaceserver's Hugging Face backend has no rerank (500); kserve-ts reranks with a cross-encoder",
}


def post(server, path: str, body: Any) -> requests.Response:
    return requests.post(f"{server.url}{path}", json=body, timeout=60)


def embed(server, body: Dict[str, Any]) -> Dict[str, Any]:
    r = post(server, "/openai/v1/embeddings", {"model": EMBED_MODEL, **body})
    assert r.status_code == 200, f"{server.name}: {r.status_code} {r.text[:500]}"
    return r.json()


def vectors(doc: Dict[str, Any]) -> np.ndarray:
    rows = []
    for i, item in enumerate(doc["data"]):
        assert item["index"] == i
        e = item["embedding"]
        rows.append(np.frombuffer(base64.b64decode(e), dtype="<f4") if isinstance(e, str) else np.asarray(e, dtype=np.float32))
    return np.stack(rows)


def assert_close(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.shape == theirs.shape
    assert np.max(np.abs(ours - theirs)) <= ABS_TOL, np.max(np.abs(ours - theirs))
    cos = np.sum(ours * theirs, axis=1) / (np.linalg.norm(ours, axis=1) * np.linalg.norm(theirs, axis=1))
    assert np.min(cos) >= MIN_COSINE, cos


@pytest.mark.parametrize("encoding_format", ["float", "base64"])
@pytest.mark.parametrize("case", ["string", "list", "one-element list", "empty string"])
def test_embeddings_match(ours, hf, case: str, encoding_format: str) -> None:
    input_ = {"string": TEXTS[1], "list": TEXTS, "one-element list": [TEXTS[0]], "empty string": ""}[case]
    body = {"input": input_, "encoding_format": encoding_format}
    a, b = embed(ours, body), embed(hf, body)
    assert_close(vectors(a), vectors(b))
    assert a["usage"] == {k: b["usage"][k] for k in ("prompt_tokens", "total_tokens")}
    # vLLM's UsageInfo (KNOWN_DIFFERENCES["usage"]).
    assert b["usage"]["completion_tokens"] == 0 and set(b["usage"]) - set(a["usage"]) == {"completion_tokens", "prompt_tokens_details"}
    assert a["usage"]["prompt_tokens"] == a["usage"]["total_tokens"] > 0
    assert a["model"] == b["model"] == EMBED_MODEL
    assert [sorted(d) for d in a["data"]] == [sorted(d) for d in b["data"]] == [["embedding", "index", "object"]] * len(a["data"])
    assert {d["object"] for d in a["data"]} == {d["object"] for d in b["data"]} == {"embedding"}
    kind = str if encoding_format == "base64" else list
    assert all(isinstance(d["embedding"], kind) for d in a["data"] + b["data"])
    # The one top-level difference (KNOWN_DIFFERENCES["top-level object"]).
    assert a["object"] == "list" and b["object"] == "embedding"
    assert set(b) - set(a) == {"id", "created"} and set(a) <= set(b)


def test_embeddings_unit_length(ours) -> None:
    norms = np.linalg.norm(vectors(embed(ours, {"input": TEXTS})), axis=1)
    assert np.allclose(norms, 1.0, atol=1e-5)


def test_token_ids(ours, hf) -> None:
    """KNOWN_DIFFERENCES["token-id input"]: huggingfaceserver refuses them; kserve-ts's
    vectors for the ids of a text (special tokens included) are the text's vectors."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(encoders() / "encoder"), do_lower_case=True)
    ids = [tok(t, truncation=True, max_length=64)["input_ids"] for t in TEXTS[:4]]
    r = post(hf, "/openai/v1/embeddings", {"model": EMBED_MODEL, "input": ids})
    assert r.status_code == 500 and "token lists is not supported" in r.json()["error"]["message"]
    assert_close(vectors(embed(ours, {"input": ids})), vectors(embed(hf, {"input": TEXTS[:4]})))


def test_dimensions(ours, hf) -> None:
    """KNOWN_DIFFERENCES["dimensions"]."""
    full = vectors(embed(hf, {"input": TEXTS[:3], "dimensions": 8}))
    assert full.shape == (3, 32)
    cut = full[:, :8] / np.linalg.norm(full[:, :8], axis=1, keepdims=True)
    assert_close(vectors(embed(ours, {"input": TEXTS[:3], "dimensions": 8})), cut)


def test_models(ours, hf) -> None:
    a = requests.get(f"{ours.url}/openai/v1/models", timeout=30).json()
    b = requests.get(f"{hf.url}/openai/v1/models", timeout=30).json()
    assert a["object"] == b["object"] == "list"
    assert EMBED_MODEL in [m["id"] for m in a["data"]] and [m["id"] for m in b["data"]] == [EMBED_MODEL]
    for doc in (a, b):
        for m in doc["data"]:
            assert m["object"] == "model" and isinstance(m["created"], int) and isinstance(m["owned_by"], str)
    assert {k for m in a["data"] for k in m} <= {k for m in b["data"] for k in m}


# Bad requests to the embeddings route: (case, body or raw text). kserve-ts answers in
# OpenAI's error shape; huggingfaceserver in the shapes EXPECTED names.
BAD = {
    "no input": {"model": EMBED_MODEL},
    "input a number": {"model": EMBED_MODEL, "input": 3.5},
    "empty list": {"model": EMBED_MODEL, "input": []},
    "unknown model": {"model": "nope", "input": "x"},
    "bad encoding_format": {"model": EMBED_MODEL, "input": "x", "encoding_format": "int8"},
    "not JSON": "{not json",
}
# case -> (kserve-ts (status, error.type), huggingfaceserver (status, body shape)):
# KNOWN_DIFFERENCES["errors"].
OPENAI_400 = (400, "invalid_request_error")
FASTAPI_422 = (422, "detail list")
EXPECTED = {
    "no input": (OPENAI_400, FASTAPI_422),
    "input a number": (OPENAI_400, FASTAPI_422),
    "empty list": (OPENAI_400, (500, "error object OpenAIError")),
    "unknown model": ((404, "not_found_error"), (404, "error string")),
    "bad encoding_format": (OPENAI_400, FASTAPI_422),
    "not JSON": (OPENAI_400, FASTAPI_422),
}


def bad_answer(server, body: Any) -> requests.Response:
    if isinstance(body, str):
        return requests.post(f"{server.url}/openai/v1/embeddings", data=body, headers={"content-type": "application/json"}, timeout=30)
    return post(server, "/openai/v1/embeddings", body)


def openai_error(r: requests.Response):
    """(status, error.type) of an answer in OpenAI's error shape."""
    error = r.json()["error"]
    assert isinstance(error, dict) and isinstance(error["message"], str) and error["message"], r.text
    assert set(error) == {"message", "type", "param", "code"}, r.text
    return r.status_code, error["type"]


def body_shape(r: requests.Response):
    doc = r.json()
    if isinstance(doc.get("detail"), list):
        return r.status_code, "detail list"
    error = doc.get("error")
    if isinstance(error, str):
        return r.status_code, "error string"
    return r.status_code, f"error object {error.get('type')}"


@pytest.mark.parametrize("case", list(BAD))
def test_bad_requests(ours, hf, case: str) -> None:
    a, b = bad_answer(ours, BAD[case]), bad_answer(hf, BAD[case])
    assert (openai_error(a), body_shape(b)) == EXPECTED[case], (a.text, b.text)


def test_rerank_matches_transformers(ours, hf) -> None:
    """kserve-ts's scores against a transformers forward pass; huggingfaceserver's HF backend
    refuses rerank (KNOWN_DIFFERENCES["rerank"])."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = str(encoders() / "reranker")
    tok = AutoTokenizer.from_pretrained(folder, do_lower_case=True)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    batch = tok([QUERY] * len(DOCUMENTS), DOCUMENTS, padding=True, truncation=True, max_length=64, return_tensors="pt")
    with torch.no_grad():
        expected = torch.sigmoid(model(**batch).logits[:, 0]).numpy()
    r = post(ours, "/openai/v1/rerank", {"model": RERANK_MODEL, "query": QUERY, "documents": DOCUMENTS})
    assert r.status_code == 200, r.text
    doc = r.json()
    got = np.zeros(len(DOCUMENTS), dtype=np.float32)
    for result in doc["results"]:
        got[result["index"]] = result["relevance_score"]
        assert result["document"]["text"] == DOCUMENTS[result["index"]]
    assert np.max(np.abs(got - expected)) <= ABS_TOL, (got, expected)
    assert doc["usage"]["prompt_tokens"] == int(batch["attention_mask"].sum())
    assert [x["relevance_score"] for x in doc["results"]] == sorted(got.tolist(), reverse=True)
    r = post(hf, "/openai/v1/rerank", {"model": EMBED_MODEL, "query": QUERY, "documents": DOCUMENTS})
    assert r.status_code == 500 and "not implemented" in r.text.lower()


@pytest.mark.parametrize("target", ["ours", "hf"])
def test_openai_python_client(request, ours, hf, target: str) -> None:
    """openai.OpenAI(...).embeddings.create asks for base64 and decodes it; the vectors are
    the raw float answer's, and the same from both servers."""
    import openai

    server = request.getfixturevalue(target)
    client = openai.OpenAI(base_url=f"{server.url}/openai/v1", api_key="x", max_retries=0)
    got = client.embeddings.create(model=EMBED_MODEL, input=TEXTS)
    assert [d.index for d in got.data] == list(range(len(TEXTS)))
    as_array = np.asarray([d.embedding for d in got.data], dtype=np.float32)
    assert_close(as_array, vectors(embed(hf, {"input": TEXTS})))
    assert got.usage.prompt_tokens == embed(ours, {"input": TEXTS})["usage"]["prompt_tokens"]
    one = client.embeddings.create(model=EMBED_MODEL, input="hello world", encoding_format="float")
    assert len(one.data) == 1 and len(one.data[0].embedding) == 32
    assert [m.id for m in client.models.list()][:1] and EMBED_MODEL in [m.id for m in client.models.list()]
    with pytest.raises(openai.APIStatusError) as failed:
        client.embeddings.create(model="nope", input="x")
    print(target, "unknown model:", failed.value.status_code, type(failed.value).__name__)
    assert failed.value.status_code in (400, 404)


def test_wire_floats_are_float32(ours) -> None:
    """base64 carries the float answer's numbers bit for bit (little-endian float32)."""
    f = embed(ours, {"input": TEXTS[:2]})
    b = embed(ours, {"input": TEXTS[:2], "encoding_format": "base64"})
    for fi, bi in zip(f["data"], b["data"]):
        raw = base64.b64decode(bi["embedding"])
        assert list(struct.unpack(f"<{len(raw) // 4}f", raw)) == [np.float32(x) for x in fi["embedding"]]
