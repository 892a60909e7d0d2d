"""Differential testing: every corpus request goes to the anchor and to kserve-ts over raw
HTTP; the answers must be the same after normalising what the protocol leaves free
(compare.py), except for the differences known_differences.py lists and explains."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

import compare
import corpus
import known_differences
from compare import Answer, Difference

CASES = corpus.all_cases()
CASES_BY_ID = {c.id: c for c in CASES}


@pytest.fixture(scope="module")
def answers(servers) -> Dict[str, Tuple[Answer, Answer]]:
    """All cases, in corpus order, each sent to the anchor then to kserve-ts. Sent once, up
    front: the repository cases change server state, so the order is part of the corpus."""
    out = {}
    for case in CASES:
        out[case.id] = (compare.send(servers["anchor"].url, case), compare.send(servers["ours"].url, case))
    for server in servers.values():
        server.assert_alive()
    return out


def _request_text(case: corpus.Case) -> str:
    body = case.body or b""
    shown = body[:300].decode("utf-8", errors="replace")
    more = f"... ({len(body)} bytes)" if len(body) > 300 else ""
    headers = ", ".join(f"{k}: {v}" for k, v in case.headers.items()) or "-"
    return f"{case.method} {case.path}  [{headers}]\n    {shown}{more}"


def _report(case: corpus.Case, anchor: Answer, ours: Answer, unexplained: List[Difference]) -> str:
    lines = [f"case {case.id}: differences that known_differences.py does not list"]
    lines += [f"  [{d.aspect}] {d.detail}" for d in unexplained]
    lines += [f"request:\n    {_request_text(case)}",
              f"anchor:\n    {anchor.summary()}",
              f"ours:\n    {ours.summary()}",
              "Fix kserve-ts, or add an entry with the reason to known_differences.py "
              "(and docs/compatibility.md)."]
    return "\n".join(lines)


def test_corpus_is_large_enough():
    generated = [c for c in CASES if not c.id.startswith(("invalid/", "edge/"))]
    hand_written = [c for c in CASES if c.id.startswith(("invalid/", "edge/"))]
    assert len(CASES) >= 100, len(CASES)
    assert len(hand_written) >= 30, len(hand_written)
    assert len(generated) >= 70, len(generated)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_same_answer(case: corpus.Case, answers):
    anchor, ours = answers[case.id]
    diffs = compare.differences(case, anchor, ours)
    unexplained = [d for d in diffs if known_differences.explaining(case.id, d.aspect) is None]
    if unexplained:
        pytest.fail(_report(case, anchor, ours, unexplained), pytrace=False)


def test_every_known_difference_still_occurs(answers):
    """An entry (or one of its case patterns) that explains nothing any more is stale: the
    difference was fixed or the case renamed. Remove or update it."""
    observed: Dict[str, set] = {}
    for case in CASES:
        for d in compare.differences(case, *answers[case.id]):
            known = known_differences.explaining(case.id, d.aspect)
            if known is not None:
                observed.setdefault(known.key, set()).add(case.id)
    stale = []
    for known in known_differences.KNOWN:
        seen = observed.get(known.key, set())
        for pattern in known.cases:
            if not any(fnmatch.fnmatchcase(i, pattern) for i in seen):
                matching = [c.id for c in CASES if fnmatch.fnmatchcase(c.id, pattern)]
                why = "matches no corpus case" if not matching else "no longer differs"
                stale.append(f"{known.key}: pattern {pattern!r} {why}")
    if stale:
        pytest.fail("stale entries in known_differences.py:\n  " + "\n  ".join(stale), pytrace=False)


def test_known_differences_name_real_tests():
    """Entries seen by client tests name them as 'file.py::test_name'; keep those real."""
    here = Path(__file__).parent
    missing = []
    for known in known_differences.KNOWN:
        if not known.cases and not known.tests:
            missing.append(f"{known.key}: names neither corpus cases nor tests")
        for ref in known.tests:
            file, _, name = ref.partition("::")
            path = here / file
            if not path.is_file() or f"def {name}(" not in path.read_text():
                missing.append(f"{known.key}: {ref} does not exist")
    if missing:
        pytest.fail("\n".join(missing), pytrace=False)
