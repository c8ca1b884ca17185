"""House rules that neither ruff nor the import-linter contracts (pyproject.toml) can state, checked with `ast`."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def imported_modules(path: pathlib.Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def test_only_the_comparisons_oracle_imports_real_dynamo():
    """tracer.compare.dynamo_side runs torch._dynamo in its own child process; nothing else in the
    compare package imports Dynamo's Python, and nothing outside it imports the oracle."""
    offenders = []
    for path in sorted((ROOT / "tracer").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        for module in imported_modules(path):
            if name.startswith("tracer/compare/") and name != "tracer/compare/dynamo_side.py" \
                    and module.startswith("torch._dynamo"):
                offenders.append(f"{name} imports {module}")
            if not name.startswith("tracer/compare/") and module.endswith("compare.dynamo_side"):
                offenders.append(f"{name} imports {module}")
    assert offenders == []
    assert "torch._dynamo" in list(imported_modules(ROOT / "tracer" / "compare" / "dynamo_side.py"))
