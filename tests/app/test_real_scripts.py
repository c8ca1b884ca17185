"""Real scripts as a person brings them: File ▸ Open (the chooser answered), run, step, export.

Each script is written the way users write theirs (a transformers model, a loop that breaks the
graph, a script that raises half way); the tests read what the panels show and check it against
what torch.compile itself does with the same code where the engine could be wrong.
"""
import json
import os
import textwrap

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from app.main_window import MainWindow

HF_SCRIPT = """\
    import os
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=64, n_positions=16, n_embd=16, n_layer=1, n_head=2)
    model = transformers.GPT2LMHeadModel(config).eval()
    compiled = torch.compile(model, backend="eager")
    ids = torch.randint(0, 64, (2, 8))
    with torch.no_grad():
        out = compiled(ids)
    print("logits", tuple(out.logits.shape))
"""

LOOP_SCRIPT = """\
    import torch


    @torch.compile(backend="eager")
    def accumulate(x, steps):
        total = torch.zeros_like(x)
        for i in range(steps):
            total = total + x * i
            print("step", i)
        return total.sum()


    print("total", float(accumulate(torch.ones(4), 3)))
"""

RAISING_SCRIPT = """\
    import torch


    @torch.compile(backend="eager")
    def normalise(x):
        return (x - x.mean()) / x.std()


    def load(rows):
        if rows < 2:
            raise ValueError(f"need two rows at least, got {rows}")
        return torch.arange(float(rows))


    print(normalise(load(4)).tolist())
    print(normalise(load(1)).tolist())
"""
RAISING_LINE = 11  # the `raise`


@pytest.fixture
def window(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    return win


def menu_action(window, menu_title: str, text: str):
    for top in window.menuBar().actions():
        if top.text().replace("&", "") == menu_title:
            for action in top.menu().actions():
                if action.text().replace("&", "") == text:
                    return action
    raise AssertionError(f"no {menu_title} ▸ {text}")


def open_through_the_menu(window, qtbot, monkeypatch, tmp_path, name: str, body: str):
    """Write the script, answer the file chooser with it, click File ▸ Open…, wait for the run."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *args: (str(path), "Python (*.py)")))
    menu_action(window, "File", "Open…").trigger()
    assert window.controller.running is not None and window.run_progress.isVisible()
    qtbot.waitUntil(lambda: window.controller.running is None, timeout=120_000)
    return path


def export_through_the_menu(window, monkeypatch, out) -> dict:
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *args: str(out)))
    menu_action(window, "File", "Export graphs and guard reports…").trigger()
    return json.loads((out / "report.json").read_text())


def status(window) -> str:
    return window.statusBar().currentMessage()


def cache_rows(window) -> list[tuple]:
    return [item.values for item in window.cache_panel.model.all_items()]


def dynamo_graph_ops(make, *args) -> list[list[str]]:
    """The op targets of each graph real torch.compile makes of the same call."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append([str(n.target) for n in gm.graph.nodes if n.op not in ("placeholder", "output")])
        return gm.forward

    torch._dynamo.reset()
    try:
        with torch.no_grad():
            torch.compile(make(), backend=backend)(*args)
    finally:
        torch._dynamo.reset()
    return graphs


# ---- a transformers model -------------------------------------------------------------------------------
def test_a_tiny_gpt2_opens_steps_to_its_end_and_exports_the_graph_torch_compile_makes(window, qtbot, monkeypatch,
                                                                                      tmp_path):
    transformers = pytest.importorskip("transformers")
    path = open_through_the_menu(window, qtbot, monkeypatch, tmp_path, "tiny_gpt2.py", HF_SCRIPT)
    assert status(window) == "tiny_gpt2.py: 1 compiled function(s), 1 trace(s)"
    assert window.windowTitle() == "Standin — tiny_gpt2.py"
    assert "logits (2, 8, 64)" in window.log_panel.contents()
    timeline = window.controller.timeline
    assert window.trace_combo.currentText() == f"wrapper [0/0] — {len(timeline)} steps — returned; 1 graph(s)"
    assert window.step_label.text() == f"step 1 / {len(timeline)}"
    assert window.source_view.filename().endswith(os.path.join("transformers", "utils", "generic.py"))
    (entry,) = window.cache_panel.entry_items()
    (frame,) = window.controller.session.functions[0].all_frames()
    assert entry.values[:4] == ("[0/0]", "1", str(len(frame.cache_entries[0].guards)), "1")
    assert [item.values for item in window.breaks_panel.model.all_items()] == []

    qtbot.keyClick(window, Qt.Key_F5)  # continue: no breakpoint, so to the last step
    assert window.step_label.text() == f"step {len(timeline)} / {len(timeline)}"
    assert window.controller.snapshot.frame.opname == "RETURN_VALUE"
    ops = [n.target for n in window.graph_panel.nodes if n.op not in ("placeholder", "output")]

    def make():
        torch.manual_seed(0)
        config = transformers.GPT2Config(vocab_size=64, n_positions=16, n_embd=16, n_layer=1, n_head=2)
        return transformers.GPT2LMHeadModel(config).eval()

    torch.manual_seed(0)
    (dynamo_ops,) = dynamo_graph_ops(make, torch.randint(0, 64, (2, 8)))
    assert len(ops) == len(dynamo_ops) > 40  # the drawing shows the graph torch.compile makes, op for op
    assert window.graph_panel.text.toPlainText().count("\n") + 1 == len(window.graph_panel.nodes)

    report = export_through_the_menu(window, monkeypatch, tmp_path / "out")
    assert report["summary"]["graphs"] == 1 and report["summary"]["cache_entries"] == 1
    assert (tmp_path / "out" / "wrapper" / "0_0" / "graph_0.py").is_file()
    assert status(window).startswith("exported ") and path.is_file()


# ---- a graph break inside a loop ---------------------------------------------------------------------------
def test_a_graph_break_in_a_loop_shows_the_frame_running_eagerly_and_where_it_broke(window, qtbot, monkeypatch,
                                                                                   tmp_path):
    path = open_through_the_menu(window, qtbot, monkeypatch, tmp_path, "loop_break.py", LOOP_SCRIPT)
    assert status(window) == "loop_break.py: 1 compiled function(s), 2 trace(s)"
    log = window.log_panel.contents()
    assert "step 0\nstep 1\nstep 2\ntotal 12.0" in log  # the script's own output, in order
    combo = [window.trace_combo.itemText(i) for i in range(window.trace_combo.count())]
    assert combo[0] == "accumulate [0/0] (first attempt) — 25 steps — restarting to stop before the graph break"
    assert combo[1].startswith("accumulate [0/0] — 25 steps — runs eagerly: graph break in a loop")
    # torch.compile skips the frame too: it makes no graph and the call runs as it is
    assert dynamo_graph_ops(lambda: _accumulate_of(path), torch.ones(4), 3) == []
    without_print = textwrap.dedent(LOOP_SCRIPT).replace('print("step", i)', "pass")  # the oracle can tell
    assert len(dynamo_graph_ops(lambda: _accumulate_of(path, without_print), torch.ones(4), 3)) == 1
    (entry,) = window.cache_panel.entry_items()
    assert entry.values[:4] == ("[0/0]", "1+", "0", "0") and entry.error
    assert entry.values[4].startswith("eager: graph break in a loop (print() has a side effect outside the graph)")

    # the break is listed where it happened, as Dynamo lists it (`standin compare`: 1 break at loop_break.py:9)
    breaks = window.breaks_panel
    assert [item.values for item in breaks.model.all_items()] == [
        ("print() has a side effect outside the graph — so the frame runs eagerly", "loop_break.py:9",
         "accumulate [0/0]")]
    window.dock("breaks").raise_()
    index = breaks.model.index(0, 0)
    qtbot.waitUntil(lambda: breaks.view.visualRect(index).isValid())
    qtbot.mouseClick(breaks.view.viewport(), Qt.LeftButton, pos=breaks.view.visualRect(index).center())
    assert window.source_view.highlighted_lines() == {9}

    window.trace_combo.setCurrentIndex(1)  # the attempt that decided to run eagerly
    qtbot.keyClick(window, Qt.Key_F5)
    assert window.step_label.text() == "step 25 / 25"
    assert window.where_label.text() == ("accumulate — line 9, offset 112: CALL    "
                                         "⚠ graph break: print() has a side effect outside the graph")
    assert window.source_view.filename() == str(path) and window.source_view.current_line() == 9
    report = export_through_the_menu(window, monkeypatch, tmp_path / "out")
    assert report["summary"]["graphs"] == 0 and report["summary"]["eager_entries"] == 1


def _accumulate_of(path, body: str | None = None):
    """The script's function undecorated, for torch.compile to compile (the script's top level is not run)."""
    source = (body or path.read_text()).split("\n\n\nprint(")[0].replace('@torch.compile(backend="eager")\n', "")
    namespace: dict = {}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace["accumulate"]


# ---- a script that raises after it compiled ------------------------------------------------------------------
def test_a_script_that_raises_after_compiling_keeps_its_trace_shows_the_line_and_exports(window, qtbot, monkeypatch,
                                                                                       tmp_path):
    path = open_through_the_menu(window, qtbot, monkeypatch, tmp_path, "raises.py", RAISING_SCRIPT)
    message = f"raises.py raised ValueError: need two rows at least, got 1 (line {RAISING_LINE} of raises.py)"
    assert status(window) == message
    (dialog,) = [d for d in window.findChildren(QMessageBox) if d.isVisible()]
    assert dialog.icon() == QMessageBox.Critical and dialog.text() == message
    assert f'raises.py", line {RAISING_LINE}, in load' in dialog.detailedText()
    assert window.source_view.filename() == str(path)
    assert window.source_view.highlighted_lines() == {RAISING_LINE}
    assert "[0.0, 1.0, 2.0, 3.0]" not in window.log_panel.contents()  # the first call's normalised values ...
    assert "[-1.161895" in window.log_panel.contents()  # ... are printed, as Python prints them
    timeline = window.controller.timeline
    assert window.trace_combo.currentText() == f"normalise [0/0] — {len(timeline)} steps — returned; 1 graph(s)"
    qtbot.mouseClick(dialog.button(QMessageBox.Ok), Qt.LeftButton)  # read, dismissed: back to the window
    assert not dialog.isVisible()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, Qt.Key_F5)
    assert window.step_label.text() == f"step {len(timeline)} / {len(timeline)}"
    ops = [n.target for n in window.graph_panel.nodes if n.op not in ("placeholder", "output")]
    assert ops == ["mean", "operator.sub", "std", "operator.truediv"]

    report = export_through_the_menu(window, monkeypatch, tmp_path / "out")
    assert report["status"]["ok"] is False and report["status"]["error"] == "ValueError: need two rows at least, got 1"
    assert report["summary"]["graphs"] == 1
    assert status(window).startswith("exported ")
    assert sorted(p.name for p in (tmp_path / "out" / "normalise" / "0_0").iterdir()) == \
        ["graph_0.dot", "graph_0.py", "graph_0.svg", "guards.json", "guards.txt", "original.dis.txt",
         "rewritten.dis.txt"]
