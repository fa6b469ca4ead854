"""Mutation fuzzing of every record reader, on both cores: small valid inputs of
each format (tests/fuzz/readers.py) take random edits from a seeded generator,
and the readers must answer with records that round-trip or a BrettError,
nothing else.

``BRETT_FUZZ_CASES`` sets the cases per reader and core (default 1,500: the run
takes about ten seconds); ``BRETT_FUZZ_SEED`` another seed.  A failure names the
reader, the case and the input, which ``readers.run(reader, input)`` replays.
The coverage-guided targets (atheris) are in tests/fuzz/; the slow test at the
end runs each for ``BRETT_FUZZ_SECONDS`` (default 9) on each core.
"""

from __future__ import annotations

import importlib.util
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brett
from brett.records import Record, dump, load_record
from brett.records.sgf import read_sgf, write_sgf
from fuzz.readers import CHECKS, mutate, on_core, run, samples

CASES = int(os.environ.get("BRETT_FUZZ_CASES", "1500"))
SEED = int(os.environ.get("BRETT_FUZZ_SEED", "20"))


@pytest.mark.parametrize("reader", sorted(CHECKS))
def test_the_samples_read_and_round_trip(reader: str, backend: str) -> None:
    """The starting points are valid: each reads without an error."""
    with on_core(backend):
        for data in samples()[reader]:
            CHECKS[reader](data)


@pytest.mark.parametrize("reader", sorted(CHECKS))
def test_mutated_input_reads_or_raises_a_brett_error(reader: str, backend: str) -> None:
    rng = random.Random(f"{SEED} {reader} {backend}")
    inputs = samples()[reader]
    read = 0
    with on_core(backend):
        for case in range(CASES):
            data = mutate(rng, rng.choice(inputs), inputs)
            try:
                CHECKS[reader](data)
                read += 1
            except brett.BrettError:
                pass
            except BaseException as exc:
                raise AssertionError(f"{reader} case {case} on the {backend} core: "
                                     f"{type(exc).__name__}: {exc}\ninput: {data!r}") from exc
    assert 0 < read < CASES, "the mutations should keep some inputs readable, not all"


# ------------------------------------------------------------------ hypothesis
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12) | \
    st.sampled_from(["]", "\\", "\\]", "a]b", "x\\", ":", "[]", "\n", "\r\n", " "])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["reversi", "phutball", "focus"]), seed=st.integers(0, 2**16),
       data=st.data())
def test_any_text_in_comments_and_properties_round_trips(name: str, seed: int,
                                                         data: st.DataObject) -> None:
    """Comments, node properties and headers of any text (brackets, backslashes,
    colons, line breaks, any script) come back unchanged from SGF and JSON."""
    game = brett.GAMES[name]()
    game.random_playout(seed=seed, max_plies=6)
    record = Record.from_game(game, **data.draw(st.dictionaries(
        st.sampled_from(["Black", "White", "Event", "SO", "BlackScore", "x:y"]), TEXT,
        max_size=3)))
    for node in record.root.mainline():
        node.comment = data.draw(TEXT)
        node.properties.update(data.draw(st.dictionaries(
            st.sampled_from(["eval", "GB", "BN", "time", "a:b", "C"]), TEXT, max_size=2)))
    assert load_record(dump(record)) == record
    if "x:y" in record.headers or any("a:b" in n.properties for n in record.root.walk()):
        with pytest.raises(brett.InvalidRecordError, match="without ':'"):
            write_sgf([record])
        return
    assert read_sgf(write_sgf([record])) == [record]


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=300), reader=st.sampled_from(sorted(CHECKS)))
def test_any_bytes_read_or_raise_a_brett_error(data: bytes, reader: str) -> None:
    """Inputs unlike any sample (the mutations start from valid ones)."""
    run(reader, data)


# ------------------------------------------------------------------ atheris
TARGETS = Path(__file__).parent / "fuzz"
SECONDS = int(os.environ.get("BRETT_FUZZ_SECONDS", "9"))


@pytest.mark.slow
@pytest.mark.parametrize("reader", sorted(CHECKS))
def test_coverage_guided_fuzzing_finds_nothing(reader: str, backend: str,
                                               tmp_path: Path) -> None:
    """tests/fuzz/fuzz_<reader>.py for a few seconds: no exception but a
    BrettError, no input slower than 10 s, no run past 2 GB."""
    if importlib.util.find_spec("atheris") is None:
        if os.environ.get("BRETT_REQUIRE_FUZZ"):
            pytest.fail("BRETT_REQUIRE_FUZZ is set and atheris is not installed: "
                        "pip install -e '.[fuzz]'")
        pytest.skip("ATHERIS IS NOT INSTALLED: the coverage-guided fuzz targets did not "
                    "run (pip install -e '.[fuzz]'; BRETT_REQUIRE_FUZZ=1 makes this fail)")
    source = str(Path(brett.__file__).resolve().parents[1])
    env = {**os.environ, "BRETT_FUZZ_BACKEND": backend,
           "PYTHONPATH": os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, str(TARGETS / f"fuzz_{reader}.py"), f"-max_total_time={SECONDS}",
         "-timeout=10", "-rss_limit_mb=2048", f"-artifact_prefix={tmp_path}/",
         str(tmp_path / "corpus")],
        capture_output=True, text=True, timeout=SECONDS + 120, env=env, cwd=tmp_path)
    found = {path.name: path.read_bytes()[:400] for path in tmp_path.glob("*-*")
             if path.name.split("-")[0] in ("crash", "timeout", "oom", "leak")}
    assert result.returncode == 0 and not found, f"{found}\n{result.stderr[-4000:]}"
    runs = re.search(r"Done (\d+) runs", result.stderr)
    assert runs and int(runs.group(1)) > 0, result.stderr[-2000:]
