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


# ---- the code rules of #20.8: checked over the product's code, never over tests --------------------------------
PRODUCT = ("tracer", "app", "bench", "packaging")
MAX_FUNCTION_LINES = 80


def product_files():
    return sorted(path for folder in PRODUCT for path in (ROOT / folder).rglob("*.py"))


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(source: str, *, own_packages=("tracer", "app", "bench")):
    """`from m import _name` where m is one of ours (relative, or under our packages): (line, module, name)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            ours = node.level > 0 or module.split(".")[0] in own_packages
            for alias in node.names:
                if ours and is_private(alias.name):
                    yield node.lineno, "." * node.level + module, alias.name


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES):
    """(line, name, length) of every function or method longer than limit lines, its decorators excluded."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > limit:
                yield node.lineno, node.name, length


def test_no_private_name_is_imported_from_another_module():
    offenders = [f"{path.relative_to(ROOT)}:{line} imports {name} from {module}"
                 for path in product_files() for line, module, name in private_imports(path.read_text())]
    assert offenders == []


def test_no_function_is_longer_than_80_lines():
    offenders = [f"{path.relative_to(ROOT)}:{line} {name} is {length} lines"
                 for path in product_files() for line, name, length in long_functions(path.read_text())]
    assert offenders == []


def test_the_checks_see_what_they_look_for():
    """Each check finds its violation in a snippet, and leaves alone what the rule allows."""
    snippet = ("from .dicts import _key, key_of\nfrom tracer.bytecode import _scan\nfrom torch._C import _jit\n"
               "from os import _exit\nfrom .base import __all__\n")
    assert list(private_imports(snippet)) == [(1, ".dicts", "_key"), (2, "tracer.bytecode", "_scan")]
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES - 1))
    assert list(long_functions(f"def fits():\n{body}\n")) == []
    method_body = body.replace("    ", "        ")
    assert list(long_functions(f"class C:\n    def grows(self):\n{method_body}\n        return 1\n")) == \
        [(2, "grows", MAX_FUNCTION_LINES + 1)]


# ---- #20.4: imports at the top, save the ones that must wait -------------------------------------------------
# The imports still written inside functions: each breaks an import cycle or keeps a slow or optional module off
# the start-up path, and its comment says which. Moving one to the top lowers the cap; a new one needs a reason.
MAX_FUNCTION_LEVEL_IMPORTS = 54  # +4: BaseException.__init__ on a traced exception (misc <-> exceptions, twice),
# Tensor.__iter__'s list iterator (lists -> tensor), an nn.Sequential built in the trace (object_protocol -> nn_module);
# guarded_function moved beside UserFunctionVariable saved one
ENGINE_AND_APP = ("tracer", "app")  # bench/ loads Qt and its model zoo only in the runs that use them


def engine_and_app_files():
    return sorted(path for folder in ENGINE_AND_APP for path in (ROOT / folder).rglob("*.py"))


def function_level_imports(source: str):
    """(line, has_reason) of every import inside a function; its reason is a comment on the statement's lines."""
    lines = source.split("\n")
    found = {}
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found[node.lineno] = any("#" in lines[i] for i in range(node.lineno - 1, node.end_lineno))
    return sorted(found.items())


def test_every_function_level_import_says_why():
    offenders = [f"{path.relative_to(ROOT)}:{line}" for path in engine_and_app_files()
                 for line, has_reason in function_level_imports(path.read_text()) if not has_reason]
    assert offenders == []


def test_function_level_imports_do_not_grow():
    count = sum(len(function_level_imports(path.read_text())) for path in engine_and_app_files())
    assert count <= MAX_FUNCTION_LEVEL_IMPORTS


def test_the_import_check_sees_imports_in_functions():
    snippet = ("import os\n\n\ndef f():\n    import json\n    from .misc import (A,\n                       B)  # cycle\n"
               "    def g():\n        import sys  # lazy: why\n")
    assert function_level_imports(snippet) == [(5, False), (6, True), (9, True)]
