"""A table cut short under a reader that enabled `faulthandler` after opening it: the
reads past the new end are a `TableError`, never a death by SIGBUS. The guard of mapped
tables (src/table/mapped.rs) is put back whenever a reader checks the file unchanged
(`query_many` and `layer` do), and a fault that faulthandler's handler sees first still
ends in it. Each case runs in a Python of its own,
so a failure is that process's death, not pytest's."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from conftest import copy

SCRIPT = textwrap.dedent(
    """
    import faulthandler, os, sys
    import retro

    path, answer_first = sys.argv[1], sys.argv[2] == "1"
    t = retro.open(path)
    positions = [p for k in range(len(t.layer_sizes)) for p in t.layer(k, positions=True).position]
    faulthandler.enable()
    if answer_first:
        # query_many checks that the file is unchanged, which puts the guard back.
        t.query_many(positions[:1])
    os.truncate(path, 0)
    try:
        t.query_many(positions)
    except retro.TableError as e:
        print("TableError:", e)
    """
)


@pytest.mark.parametrize("answer_first", [True, False], ids=["answer-first", "at-once"])
def test_a_table_cut_short_after_faulthandler_enable_raises(tables, tmp_path, answer_first):
    path = copy(tables["young-10x10"], tmp_path / "cut.retro")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(path), "1" if answer_first else "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert "TableError:" in done.stdout and "changed on disk" in done.stdout, done.stdout
    if answer_first:
        # The first query_many put the guard back over faulthandler's handler: the fault
        # never reached faulthandler.
        assert "Fatal Python error" not in done.stderr, done.stderr
