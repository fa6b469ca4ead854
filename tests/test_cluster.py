"""perft on a real Dask cluster (``distributed.LocalCluster``, two worker
processes): exact counts through ``client.get_executor()``, a worker killed in
the middle of a run changes nothing (its tasks run again), and the command
line's ``--scheduler``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import brett

distributed = pytest.importorskip("distributed", reason="the test extra installs it")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as dask_client:
        yield dask_client


@pytest.mark.parametrize(("name", "options", "depth"), [
    ("reversi", {}, 9), ("focus", {"players": 3}, 3), ("phutball", {}, 3),
    ("schuft", {"players": 2}, 1)])
def test_exact_counts_on_the_cluster(client: Any, name: str, options: dict[str, Any],
                                     depth: int) -> None:
    game = brett.GAMES[name](**options)
    assert game.perft(depth, executor=client.get_executor(), tasks=16) == game.perft(depth)


def test_a_killed_worker_does_not_change_the_count(client: Any) -> None:
    game = brett.Reversi()
    expected = 1_939_879_668  # perft(12), the reference table's value: seconds of work
    pids = client.run(os.getpid)  # {worker address: pid}
    victim = sorted(pids.values())[0]

    def kill_soon() -> None:
        time.sleep(0.5)  # the run is under way: tasks are on both workers
        os.kill(victim, signal.SIGKILL)

    killer = threading.Thread(target=kill_soon)
    killer.start()
    started = time.monotonic()
    total = game.perft(12, executor=client.get_executor(), tasks=64)
    killer.join()
    assert time.monotonic() - started > 0.5  # the kill happened during the run
    assert total == expected
    client.wait_for_workers(2, timeout=60)  # the nanny restarted it
    assert victim not in client.run(os.getpid).values()


def test_the_command_line_on_a_cluster(client: Any) -> None:
    address = client.scheduler.address
    result = subprocess.run([sys.executable, "-m", "brett", "perft", "reversi", "--depth",
                             "9", "--scheduler", address], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("perft(9) = 3005288\n")
    bad = subprocess.run([sys.executable, "-m", "brett", "perft", "reversi", "--depth",
                          "3", "--scheduler", "tcp://127.0.0.1:9"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "--scheduler" in bad.stderr
