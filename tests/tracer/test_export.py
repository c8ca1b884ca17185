"""tracer.export and `standin export/explain`: graphs as runnable code, DOT and SVG, reports, the CLI."""
import json
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import jsonschema
import pytest
import torch

from app import cli
from tracer.debug import Session
from tracer.export import export_session
from tracer.export.graphs import example_inputs, load_graph_module
from tracer.export.reports import all_frames, entry_dir_name, safe_name

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEED = ROOT / "resources" / "examples" / "seed_example.py"
SCHEMA = json.loads((ROOT / "resources" / "schemas" / "standin.report.schema.json").read_text())
SVG_NS = "{http://www.w3.org/2000/svg}"

BREAK_SCRIPT = '''\
import torch

BANNER = "<script>alert('pwned')</script>"


@torch.compile(backend="eager")
def g(x, k):
    y = torch.sin(x) * k + 1
    print("break here", BANNER)
    z = y.cos().sum(0, keepdim=True)
    return z - y, y.shape


print(g(torch.ones(2, 3), 2.0))
print(g(torch.ones(2, 3), 3.0))
'''


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """(session, export result) for the bundled example and a script with a graph break."""
    base = tmp_path_factory.mktemp("export")
    script = base / "breaks.py"
    script.write_text(BREAK_SCRIPT)
    out = {}
    for name, path in [("seed", SEED), ("breaks", script)]:
        session = Session(str(path)).run()
        assert session.error is None, session.error
        out[name] = (session, export_session(session, str(base / name)))
    return out


def entries(session):
    for frame in all_frames(session):
        for entry in frame.cache_entries:
            yield frame, entry, f"{safe_name(frame.code.co_name)}/{entry_dir_name(entry.compile_id)}"


@pytest.mark.parametrize("name", ["seed", "breaks"])
def test_graph_python_imports_runs_and_matches_the_graph(exports, name):
    session, result = exports[name]
    checked = 0
    for _, entry, edir in entries(session):
        for i, gm in enumerate(entry.graphs):
            path = pathlib.Path(result.out_dir, edir, f"graph_{i}.py")
            text = path.read_text()
            assert "class Graph(torch.nn.Module):" in text
            assert "# File: " in text and ", code: " in text  # the user's lines as comments
            inputs = example_inputs(gm)
            got = load_graph_module(str(path))(*inputs)
            torch.testing.assert_close(got, gm(*inputs))
            checked += 1
    assert checked == result.report["summary"]["graphs"] >= 2


def test_graph_python_carries_the_users_source_lines(exports):
    session, result = exports["breaks"]
    _, entry, edir = next(iter(entries(session)))
    text = pathlib.Path(result.out_dir, edir, "graph_0.py").read_text()
    assert "code: y = torch.sin(x) * k + 1" in text


DOT_ID = r'"(?:[^"\\]|\\.)*"'
DOT_NODE = re.compile(rf"^\s*({DOT_ID})\s*\[(.*)\];$")
DOT_EDGE = re.compile(rf"^\s*({DOT_ID})\s*->\s*({DOT_ID});$")
DOT_ATTR = re.compile(rf"(\w+)=({DOT_ID}|[\w.]+)")


def parse_dot(text):
    """A small structural DOT check: header, quoted ids, node/edge statements, a closing brace."""
    lines = text.strip().splitlines()
    assert re.match(rf"^digraph {DOT_ID} {{$", lines[0]), lines[0]
    assert lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[1:-1]:
        if m := DOT_NODE.match(line):
            attrs = m.group(2)
            consumed = ", ".join(a.group(0) for a in DOT_ATTR.finditer(attrs))
            assert consumed == attrs.strip(), f"bad attribute list: {attrs}"
            nodes[m.group(1)] = dict(DOT_ATTR.findall(attrs))
        elif m := DOT_EDGE.match(line):
            edges.append((m.group(1), m.group(2)))
        else:
            assert re.match(r"^\s*(rankdir=\w+|(node|edge) \[.*\]);$", line), f"unexpected DOT line: {line}"
    return nodes, edges


@pytest.mark.parametrize("name", ["seed", "breaks"])
def test_dot_is_well_formed_with_a_node_per_graph_node(exports, name):
    session, result = exports[name]
    checked = 0
    for _, entry, edir in entries(session):
        for i, gm in enumerate(entry.graphs):
            nodes, edges = parse_dot(pathlib.Path(result.out_dir, edir, f"graph_{i}.dot").read_text())
            assert sorted(n.strip('"') for n in nodes) == sorted(n.name for n in gm.graph.nodes)
            assert all(a in nodes and b in nodes for a, b in edges)
            expected = sum(len(set(n.all_input_nodes)) for n in gm.graph.nodes)
            assert len(edges) == expected
            checked += 1
    assert checked == result.report["summary"]["graphs"] >= 2  # every graph of the export has its DOT


def test_dot_quotes_awkward_text():
    from tracer.export.graphs import dot_quote, graph_dot
    assert dot_quote('a "b" \\ c\nd') == r'"a \"b\" \\ c\nd"'
    description = {"nodes": [{"name": 'we"ird', "op": "placeholder", "target": "x", "args": "", "inputs": [],
                              "shape": None, "dtype": None, "location": None}]}
    nodes, _ = parse_dot(graph_dot(description, 'name with "quotes"'))
    assert list(nodes) == [r'"we\"ird"']


@pytest.mark.parametrize("name", ["seed", "breaks"])
def test_svg_is_well_formed_xml_with_one_group_per_node(exports, name):
    session, result = exports[name]
    checked = 0
    for _, entry, edir in entries(session):
        for i, gm in enumerate(entry.graphs):
            root = ET.parse(pathlib.Path(result.out_dir, edir, f"graph_{i}.svg")).getroot()
            assert root.tag == f"{SVG_NS}svg"
            groups = [g for g in root.iter(f"{SVG_NS}g") if g.get("class") == "node"]
            assert sorted(g.get("data-name") for g in groups) == sorted(n.name for n in gm.graph.nodes)
            for group in groups:
                assert group.find(f"{SVG_NS}rect") is not None and group.find(f"{SVG_NS}text") is not None
            paths = [p for p in root.iter(f"{SVG_NS}path") if p.get("class") == "edge"]
            assert len(paths) == sum(len(set(n.all_input_nodes)) for n in gm.graph.nodes)
            checked += 1
    assert checked == result.report["summary"]["graphs"] >= 2  # every graph of the export has its SVG


def test_svg_layout_puts_inputs_above_their_users(exports):
    from tracer.export.svg import layout
    report = exports["breaks"][1].report
    graph = report["frames"][0]["entries"][0]["graphs"][0]
    boxes = layout({"nodes": graph["nodes"]})["boxes"]
    for node in graph["nodes"]:
        for source in node["inputs"]:
            assert boxes[source][1] + boxes[source][3] <= boxes[node["name"]][1]


@pytest.mark.parametrize("name", ["seed", "breaks"])
def test_report_json_validates_against_its_schema(exports, name):
    _, result = exports[name]
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    document = json.loads(pathlib.Path(result.out_dir, "report.json").read_text())
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert document["schema"] == "standin.report/1"


def test_schema_rejects_a_broken_report(exports):
    document = json.loads(json.dumps(exports["seed"][1].report, default=str))
    del document["frames"][0]["entries"][0]["guards"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)


def test_seed_report_has_the_recompile_and_its_reason(exports):
    report = exports["seed"][1].report
    assert report["summary"]["recompiles"] == 1 and report["summary"]["graph_breaks"] == 0
    assert "G['cfg'].scale == 2" in report["recompiles"][0]["reason"]
    entry = report["frames"][0]["entries"][0]
    assert entry["graphs"][0]["ops"] == ["operator.mul", "operator.add", "operator.sub", "torch.relu"]
    assert entry["bytecode"]["original"] and entry["bytecode"]["rewritten"]


def test_breaks_report_names_the_break_and_its_line(exports):
    report = exports["breaks"][1].report
    breaks = report["graph_breaks"]
    assert [b["compile_id"] for b in breaks] == [e["compile_id"] for e in report["frames"][0]["entries"]]
    assert all("print" in b["reason"] and b["location"]["line"] == 9 for b in breaks)
    assert report["summary"]["frames"] == 2  # g and its resume function
    assert report["summary"]["recompiles"] == 1  # k=2.0 then k=3.0: the float was a guarded constant


def test_export_layout_per_cache_entry(exports):
    session, result = exports["breaks"]
    out = pathlib.Path(result.out_dir)
    for name in ("report.html", "report.json", "explain.txt", "stdout.txt"):
        assert (out / name).is_file()
    for _, entry, edir in entries(session):
        folder = out / edir
        for name in ("guards.txt", "guards.json", "original.dis.txt", "rewritten.dis.txt"):
            assert (folder / name).is_file(), folder / name
        guards = json.loads((folder / "guards.json").read_text())
        assert guards["schema"] == "standin.guards/1" and guards["compile_id"] == entry.compile_id
        assert (folder / "guards.txt").read_text().startswith("TREE_GUARD_MANAGER:")
        assert "RESUME" in (folder / "original.dis.txt").read_text()
    assert sorted(result.files) == sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


def test_html_escapes_the_users_strings(exports):
    _, result = exports["breaks"]
    page = pathlib.Path(result.out_dir, "report.html").read_text()
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in page
    assert 'href="http' not in page and 'src="http' not in page and "@import" not in page  # offline
    for section in ("summary", "source", "graph-breaks", "recompiles", "frames", "stdout"):
        assert f'id="{section}"' in page


# ---- the command line --------------------------------------------------------------------------


def test_cli_missing_script_is_exit_2(tmp_path, capsys):
    missing = str(tmp_path / "nope.py")
    assert cli.main(["export", missing, "--out", str(tmp_path / "out")]) == 2
    assert cli.main(["explain", missing]) == 2
    assert cli.main([missing]) == 2
    assert "no such script" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv", [["--help"], ["export", "--help"], ["explain", "--help"], ["gui", "--help"]])
def test_cli_help(argv, capsys):
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: standin")
    if argv[0] == "export":
        assert "report.html" in text and "graph_<i>.py" in text


def test_cli_usage_error_is_exit_2(capsys):
    assert cli.main(["export", str(SEED)]) == 2  # --out is required
    assert "--out" in capsys.readouterr().err


def test_cli_explain_prints_breaks_and_recompiles(tmp_path, capsys):
    script = tmp_path / "breaks.py"
    script.write_text(BREAK_SCRIPT)
    assert cli.main(["explain", str(script)]) == 0
    captured = capsys.readouterr()
    assert "running" in captured.err
    out = captured.out
    assert "breaks.py:9 in g" in out and "print() has a side effect" in out
    assert 'print("break here", BANNER)' in out
    assert "Recompiles:" in out and "Graph breaks:" in out


def test_cli_export_failing_script_exits_1_and_still_writes(tmp_path, capsys):
    script = tmp_path / "fails.py"
    script.write_text("import sys, torch\n\n@torch.compile(backend='eager')\ndef h(x):\n    return x + 1\n\n"
                      "h(torch.ones(2))\nprint('argv', sys.argv[1:])\nraise ValueError('boom')\n")
    out = tmp_path / "out"
    assert cli.main(["export", str(script), "--out", str(out), "--", "--flag", "3"]) == 1
    err = capsys.readouterr().err
    assert "ValueError: boom" in err and "writing" in err and "partial" in err
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == {"ok": False, "error": "ValueError: boom", "exit_status": None, "exit_how": None}
    assert report["summary"]["graphs"] == 1 and "argv ['--flag', '3']" in report["stdout"]
    assert (out / "h" / "0_0" / "graph_0.py").is_file() or any(out.glob("h/*/graph_0.py"))


def test_cli_export_and_explain_never_import_qt(tmp_path):
    code = ("import sys; from app import cli; "
            f"rc = cli.main(['export', {str(SEED)!r}, '--out', {str(tmp_path / 'o')!r}]); "
            "assert rc == 0, rc; "
            "assert not any(m.startswith('PySide6') for m in sys.modules), 'Qt imported'")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "o" / "report.html").is_file()


TWO_RECOMPILES_AND_A_BREAK = '''
import torch

class Cfg:
    def __init__(self):
        self.scale = 2

cfg = Cfg()

@torch.compile
def f(x):
    y = x * cfg.scale
    print("between graphs")
    return y + 1

f(torch.ones(2))
cfg.scale = 3
f(torch.ones(2))
cfg.scale = 4
f(torch.ones(2))
'''


def test_cli_explain_and_export_report_two_recompiles_and_a_break(tmp_path, capsys):
    script = tmp_path / "two_recompiles.py"
    script.write_text(TWO_RECOMPILES_AND_A_BREAK)
    assert cli.main(["explain", str(script)]) == 0
    text = capsys.readouterr().out
    assert "G['cfg'].scale == 2, got 3" in text and "G['cfg'].scale == 3, got 4" in text
    assert "print()" in text and f"{script.name}:13" in text
    out = tmp_path / "out"
    assert cli.main(["export", str(script), "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["recompiles"] == 2 and report["summary"]["graph_breaks"] >= 1


def test_cli_on_a_syntax_error_fails_clearly(tmp_path, capsys):
    script = tmp_path / "broken.py"
    script.write_text("def f(:\n")
    assert cli.main(["explain", str(script)]) != 0
    assert "SyntaxError" in capsys.readouterr().err


def test_cli_timeout_stops_an_endless_script_and_still_exports(tmp_path, capsys):
    script = tmp_path / "forever.py"
    script.write_text(TWO_RECOMPILES_AND_A_BREAK + "while True:\n    pass\n")
    out = tmp_path / "out"
    assert cli.main(["export", str(script), "--out", str(out), "--timeout", "3"]) == 1
    err = capsys.readouterr().err
    assert "stopped at the 3 s timeout" in err and "the export is partial" in err
    assert json.loads((out / "report.json").read_text())["summary"]["recompiles"] == 2
    assert cli.main(["explain", str(script), "--timeout", "-1"]) == 2
    assert "positive number of seconds" in capsys.readouterr().err
