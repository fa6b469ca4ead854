"""The packaged copy of the reference perft table must equal the shared one."""

import json

import pytest

from conftest import LOCAL_REFERENCE, REFERENCE


@pytest.mark.skipif(not REFERENCE.exists(), reason="outside the brett workspace (sdist)")
def test_local_copy_matches_shared_reference() -> None:
    assert json.loads(LOCAL_REFERENCE.read_text()) == json.loads(REFERENCE.read_text())
