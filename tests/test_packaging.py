"""The build and release files: workflows valid, wheel matrix complete, sdist complete."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
in_source_tree = pytest.mark.skipif(
    not (ROOT / "setup.py").exists() or not WORKFLOWS.exists(),
    reason="needs the source checkout (not an unpacked sdist)",
)


@in_source_tree
def test_workflows_match_the_github_actions_schema() -> None:
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    assert len(files) >= 2
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema",
         "vendor.github-workflows", *files],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@in_source_tree
def test_wheel_matrix_covers_every_platform() -> None:
    text = (WORKFLOWS / "wheels.yml").read_text()
    for arch in ("x86_64", "aarch64", "arm64", "AMD64", "ARM64"):
        assert f"archs: {arch}" in text
    assert "python -m build --sdist" in text and "package-dir:" in text
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    cibw = config["tool"]["cibuildwheel"]
    assert "musllinux" not in cibw.get("skip", "").replace("musllinux_i686", "")
    assert cibw["environment"]["BRETT_REQUIRE_EXTENSIONS"] == "1"
    assert "Cython>=3.1" in config["build-system"]["requires"]


@in_source_tree
def test_sdist_contains_everything_the_build_needs(tmp_path: Path) -> None:
    env = dict(os.environ, BRETT_NO_EXTENSIONS="1")
    subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path)],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    (tarball,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(tarball) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    expected = {"pyproject.toml", "setup.py", "src/brett/py.typed", "tests/conftest.py",
                "tests/data/reference.json", "tests/data/ffo-40-59.obf"}
    # the headers and their C harness (tests/test_headers.py runs it from an sdist too)
    expected |= {str(p.relative_to(ROOT)) for p in (ROOT / "ext").rglob("*.[ch]")}
    expected |= {str(p.relative_to(ROOT)) for p in (ROOT / "src/brett/_core").glob("*.pyx")}
    assert "ext/tests/harness.c" in expected
    assert expected <= names, sorted(expected - names)
    assert not any(n.endswith((".so", ".pyd")) for n in names)
    assert not any(n.startswith("src/") and n.endswith(".c") for n in names)   # Cython's


def test_metadata_and_wheel_settings() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = config["project"]
    classifiers = project["classifiers"]
    for minor in range(10, 15):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    assert "Operating System :: OS Independent" not in classifiers
    assert project["urls"] and project["dependencies"] == []
    assert not any(req.startswith("ruff") for req in project["optional-dependencies"]["test"])
    # cmd.exe passes single quotes on as text: the Windows wheel tests need double quotes.
    assert "'" not in config["tool"]["cibuildwheel"]["test-command"]


def test_compiled_cores_are_stripped_of_debug_information() -> None:
    """Release builds pass -g0 (the wheels were 3.3 MB with debug info, 0.55 MB without)."""
    if os.environ.get("BRETT_DEBUG_BUILD") or os.environ.get("BRETT_SANITIZE"):
        pytest.skip("a debug or sanitizer build keeps its debug information on purpose")
    import brett._core

    built = [p for p in Path(brett._core.__file__).parent.iterdir()
             if p.suffix in (".so", ".pyd")]
    if not built:
        pytest.skip("no compiled core in this installation (BRETT_NO_EXTENSIONS)")
    for path in built:
        assert path.stat().st_size < 600_000, (path.name, path.stat().st_size)


def test_the_version_is_written_once() -> None:
    """pyproject.toml reads the version from brett.__version__; the installed
    metadata agrees with it (a release tag is checked against it in wheels.yml)."""
    from importlib.metadata import version

    import brett

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in config["project"] and "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "brett.__version__"}
    assert version("brett") == brett.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text() if (ROOT / "CHANGELOG.md").exists() else ""
    assert f"## {brett.__version__}" in changelog


def test_the_wheel_jobs_test_what_the_core_extra_can_run() -> None:
    """The wheel jobs install only the test-core extra: every test file they run
    exists and imports nothing beyond it (and the standard library) and the plugin
    the project's pytest options use; they leave out the deep perfts and the tests
    that bound elapsed time."""
    import ast

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    cibw = config["tool"]["cibuildwheel"]
    assert cibw["test-extras"] == ["test-core"]
    command = cibw["test-command"]
    assert '-m "not slow and not timing"' in command
    files = [word.replace("{project}/", "") for word in command.split() if word.endswith(".py")]
    allowed = {"pytest", "hypothesis", "numpy", "brett", "conftest", "strategies"}
    allowed |= {p.stem for p in (ROOT / "tests").glob("test_*.py")}   # shared helpers
    extra = {req.split(">")[0].split("[")[0] for req in
             config["project"]["optional-dependencies"]["test-core"]}
    assert extra == {"pytest", "pytest-xdist", "hypothesis", "numpy"}
    # the project's pytest options spread the run with xdist: a wheel job has it
    assert " -n auto" in config["tool"]["pytest"]["ini_options"]["addopts"]
    for name in files:
        tree = ast.parse((ROOT / name).read_text())
        imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module and not node.level}
        outside = {m for m in imported - allowed if m not in sys.stdlib_module_names}
        assert not outside, (name, outside)


@in_source_tree
def test_the_wheels_built_are_the_wheels_documented() -> None:
    """cibuildwheel's build identifiers for Linux, macOS and Windows are exactly the
    platform tags of docs/development.md's wheel table for every CPython the
    classifiers name, and the README gives their number."""
    pytest.importorskip("cibuildwheel")
    import re

    docs = (ROOT / "docs" / "development.md").read_text()
    section = docs.split("### Wheels", 1)[1].split("\n#", 1)[0]
    table = "\n".join(line for line in section.splitlines() if line.startswith("|"))
    tags = re.findall(r"`((?:manylinux|musllinux|macosx|win)_\w+)`", table)
    assert len(tags) == len(set(tags)) >= 8, tags
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    minors = [int(c.rsplit(".", 1)[1]) for c in config["project"]["classifiers"]
              if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    expected = {f"cp3{minor}-{tag}" for minor in minors for tag in tags}
    env = {k: v for k, v in os.environ.items() if not k.startswith("CIBW_")}
    built: set[str] = set()
    for platform in ("linux", "macos", "windows"):
        done = subprocess.run([sys.executable, "-m", "cibuildwheel", "--print-build-identifiers",
                               "--platform", platform], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        built |= set(done.stdout.split())
    assert built == expected, (sorted(built - expected), sorted(expected - built))
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"{len(built)} wheels: CPython 3.{min(minors)} to 3.{max(minors)}" in readme
