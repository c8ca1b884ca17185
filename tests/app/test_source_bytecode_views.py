"""The source and bytecode views: signals, links, marks, speed, and how they look."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import collections
import pathlib

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QSplitter

from app import theme
from app.widgets import highlight
from app.widgets.bytecode_view import (ACTION_BREAK_OFFSET, ACTION_BREAK_OPCODE, COL_OPNAME, NO_VALUE,
                                       BytecodeView)
from app.widgets.source_view import ACTION_RUN_TO_LINE, ACTION_TOGGLE_BREAKPOINT, SourceView
from tracer.bytecode import decode

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEED = ROOT / "resources" / "examples" / "seed_example.py"
SHOTS = pathlib.Path("/tmp/standin-views")


def seed_function_code():
    """The code object of `f` in the seed example, compiled without running torch."""
    module = compile(SEED.read_text(), str(SEED), "exec")
    return next(c for c in module.co_consts if getattr(c, "co_name", None) == "f")


def generated_source(lines: int = 2000) -> str:
    chunk = [
        "def work_{i}(x, n=3):",
        '    """Docstring for block {i}: non-ASCII é ✓."""',
        "    total = 0  # running sum",
        "    for k in range(n):",
        "        if k % 2 == 0 and x > {i}:",
        "            total += x * k - 1.5",
        "        else:",
        '            total -= len("{i}" * k)',
        "    return total",
        "",
    ]
    out = []
    i = 0
    while len(out) < lines:
        out.extend(line.format(i=i) for line in chunk)
        i += 1
    return "\n".join(out[:lines]) + "\n"


@pytest.fixture
def source(qtbot):
    view = SourceView()
    qtbot.addWidget(view)
    view.resize(800, 500)
    view.show_file(str(SEED))
    view.show()
    qtbot.waitExposed(view)
    return view


@pytest.fixture
def bytecode(qtbot):
    view = BytecodeView()
    qtbot.addWidget(view)
    view.resize(640, 520)
    view.show_code(seed_function_code())
    view.show()
    qtbot.waitExposed(view)
    return view


def gutter_point(view: SourceView, line: int) -> QPoint:
    top = view.editor.line_top(line)
    height = view.editor.fontMetrics().height()
    return QPoint(8, top + height // 2 + 1)


# -- source view ------------------------------------------------------------

def test_show_file_uses_absolute_filename_and_counts_lines(source):
    assert source.filename() == str(SEED.resolve())
    assert source.line_count() == len(SEED.read_text().splitlines())
    assert source.line_text(19) == "def f(x, n):"


def test_gutter_click_toggles_breakpoint_and_emits_line(qtbot, source):
    with qtbot.waitSignal(source.sig_toggle_breakpoint) as blocker:
        qtbot.mouseClick(source.gutter, Qt.MouseButton.LeftButton, pos=gutter_point(source, 20))
    assert blocker.args == [source.filename(), 20]
    assert source.breakpoints() == {20}
    with qtbot.waitSignal(source.sig_toggle_breakpoint) as blocker:
        qtbot.mouseClick(source.gutter, Qt.MouseButton.LeftButton, pos=gutter_point(source, 20))
    assert blocker.args == [source.filename(), 20]
    assert source.breakpoints() == set()


def test_set_breakpoints_replaces_the_dots(source):
    source.set_breakpoints({3, 20})
    assert source.breakpoints() == {3, 20}
    source.set_breakpoints(set())
    assert source.breakpoints() == set()


def test_set_current_marks_line_span_and_scrolls(qtbot):
    view = SourceView()
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show_text(generated_source(), "gen.py")
    view.show()
    qtbot.waitExposed(view)
    assert 1500 not in view.visible_lines()

    view.set_current(1504, 13, 18)  # line 1504 is "    for k in range(n):"; columns 13..18 = "range"
    assert view.current_line() == 1504
    assert 1504 in view.visible_lines()
    assert view.line_text(1504)[13:18] == "range"
    assert view.current_span() == (13, 18)
    marked = {sel.cursor.blockNumber() + 1 for sel in view.editor.extraSelections()}
    assert 1504 in marked

    view.set_current(12)  # no columns: the whole line (minus indentation)
    assert view.current_line() == 12
    assert 12 in view.visible_lines()
    assert 1504 not in view.visible_lines()
    text = view.line_text(12)
    assert view.current_span() == (len(text) - len(text.lstrip()), len(text))

    view.set_current(None)
    assert view.current_line() is None
    assert view.current_span() is None


def test_set_current_converts_cpython_byte_columns(qtbot):
    view = SourceView()
    qtbot.addWidget(view)
    text = 's = "héllo✓" + name\n'
    view.show_text(text, "u.py")
    code = compile(text, "u.py", "exec")
    load = next(i for i in decode(code).instructions if i.argrepr == "name")
    view.set_current(load.line, load.positions.col_offset, load.positions.end_col_offset)
    start, end = view.current_span()
    assert view.line_text(1)[start:end] == "name"


def test_highlight_lines_from_bytecode(source):
    source.highlight_lines({20, 21, 999})
    assert source.highlighted_lines() == {20, 21}
    marked = {sel.cursor.blockNumber() + 1 for sel in source.editor.extraSelections()}
    assert {20, 21} <= marked


def test_clicking_a_line_emits_line_selected(qtbot, source):
    y = source.editor.line_top(6) + source.editor.fontMetrics().height() // 2
    with qtbot.waitSignal(source.sig_line_selected) as blocker:
        qtbot.mouseClick(source.editor.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(30, y))
    assert blocker.args == [source.filename(), 6]
    with qtbot.waitSignal(source.sig_line_selected) as blocker:  # the same line again still re-links
        qtbot.mouseClick(source.editor.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(40, y))
    assert blocker.args == [source.filename(), 6]


def test_set_current_does_not_emit_line_selected(qtbot, source):
    with qtbot.assertNotEmitted(source.sig_line_selected):
        source.set_current(21, 22, 23)
        source.highlight_lines({20})


def test_context_menu_run_to_cursor_and_toggle(qtbot, source):
    menu = source._context_menu(21)
    run = next(a for a in menu.actions() if a.objectName() == ACTION_RUN_TO_LINE)
    with qtbot.waitSignal(source.sig_run_to_line) as blocker:
        run.trigger()
    assert blocker.args == [source.filename(), 21]
    toggle = next(a for a in menu.actions() if a.objectName() == ACTION_TOGGLE_BREAKPOINT)
    with qtbot.waitSignal(source.sig_toggle_breakpoint) as blocker:
        toggle.trigger()
    assert blocker.args == [source.filename(), 21]


def test_band_lines_follow_the_code_object(source, bytecode):
    source.set_band_lines(bytecode.code_lines())
    assert source.band_lines() == {18, 20, 21}


def test_highlighter_colours_keywords_and_multiline_strings():
    spans = highlight.token_spans('"""doc\nstill doc"""\ndef f():\n    return 1\n')
    assert spans[1] and spans[1][0][0] == 0  # the docstring's second line is coloured too
    kinds = {str(ttype) for _, _, ttype in spans[2]}
    assert "Token.Keyword" in kinds


def counting_lexer(monkeypatch) -> list:
    """The texts the highlighter lexes from now on (its cache starts empty)."""
    lexed = []
    real = highlight.token_spans

    def token_spans(text, lexer=None):
        lexed.append(text)
        return real(text, lexer)

    highlight.cached_token_spans.cache_clear()
    monkeypatch.setattr(highlight, "token_spans", token_spans)
    return lexed


def test_a_text_shown_again_is_not_lexed_again_and_the_cache_is_bounded(source, monkeypatch):
    lexed = counting_lexer(monkeypatch)
    texts = [f"x_{i} = {i}  # text {i}" for i in range(highlight.SPAN_CACHE_TEXTS + 1)]
    source.show_text(texts[0])
    coloured = [source.editor.document().firstBlock().layout().formats()]
    source.show_text(SEED.read_text())
    source.show_text(texts[0])  # back: same colours, no lexing
    coloured.append(source.editor.document().firstBlock().layout().formats())
    assert lexed == [texts[0], SEED.read_text().removesuffix("\n")]
    assert [[(f.start, f.length, f.format.foreground().color().name()) for f in fs] for fs in coloured][0] == \
        [(f.start, f.length, f.format.foreground().color().name()) for f in coloured[1]] != []
    for text in texts[1:]:  # 16 more texts push the first one out
        source.show_text(text)
    source.show_text(texts[0])
    assert lexed[-1] == texts[0] and len(lexed) == 2 + len(texts)


# -- bytecode view ----------------------------------------------------------

def click_row(qtbot, view: BytecodeView, offset: int):
    row = view.row_of_offset(offset)
    rect = view.table.visualRect(view.table.model().index(row, COL_OPNAME))
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_a_long_code_title_does_not_widen_the_view_and_reads_whole_in_its_tooltip(bytecode):
    namespace: dict = {}
    exec("class HeterogeneousConfigurationMixinForPerLayerOverrides:\n"
         "    def __getattribute_of_a_per_layer_attribute_override__(self, key):\n        return key\n", namespace)
    code = namespace["HeterogeneousConfigurationMixinForPerLayerOverrides"].__dict__[
        "__getattribute_of_a_per_layer_attribute_override__"].__code__
    narrow = bytecode.minimumSizeHint().width()
    bytecode.show_code(code)
    title = bytecode.findChild(QLabel)
    assert title.text().startswith(code.co_qualname) and title.toolTip() == title.text()
    assert title.fontMetrics().horizontalAdvance(title.text()) > 600  # wider than the view is asked to be ...
    assert bytecode.minimumSizeHint().width() == narrow < 400  # ... yet the view may stay as narrow as before


def test_rows_list_offset_line_opname_argrepr(bytecode):
    model = bytecode.table.model()
    code = seed_function_code()
    insts = decode(code).instructions
    assert model.rowCount() == len(insts)
    row = bytecode.row_of_offset(60)
    assert [model.index(row, c).data().strip() for c in range(1, 5)] == ["60", "21", "LOAD_FAST", "y"]
    assert bytecode.function_name() == "f"
    assert bytecode.code_key() == id(bytecode.code())


def test_jump_targets_are_marked(qtbot):
    def loop(xs):
        total = 0
        for x in xs:
            total += x
        return total

    view = BytecodeView()
    qtbot.addWidget(view)
    view.show_code(loop.__code__)
    model = view.table.model()
    targets = [i for i in view.instructions() if i.is_jump_target]
    assert targets
    for inst in view.instructions():
        text = model.index(view.row_of_offset(inst.offset), 1).data()
        assert text.startswith(">>") == inst.is_jump_target


def test_selecting_an_instruction_emits_line_and_columns(qtbot, bytecode):
    with qtbot.waitSignal(bytecode.sig_instruction_selected) as blocker:
        click_row(qtbot, bytecode, 60)
    assert blocker.args == [bytecode.code_key(), 60, 21, 22, 23]  # `y` in `torch.relu(y - cfg.shift)`
    with qtbot.waitSignal(bytecode.sig_instruction_selected) as blocker:
        bytecode.table.setFocus()
        qtbot.keyClick(bytecode.table, Qt.Key.Key_Down)  # keyboard navigation links too
    assert blocker.args[1] == bytecode.instructions()[bytecode.row_of_offset(60) + 1].offset


def test_clicking_current_row_again_after_a_link_reemits(qtbot, bytecode):
    click_row(qtbot, bytecode, 60)
    bytecode.highlight_line(20)
    with qtbot.waitSignal(bytecode.sig_instruction_selected) as blocker:
        click_row(qtbot, bytecode, 60)
    assert blocker.args[1] == 60


def test_highlight_line_selects_all_instructions_of_the_line(qtbot, bytecode):
    expected = [i.offset for i in bytecode.instructions() if i.line == 20]
    with qtbot.assertNotEmitted(bytecode.sig_instruction_selected):
        rows = bytecode.highlight_line(20)
    assert len(rows) == len(expected) == 7
    assert bytecode.selected_offsets() == expected
    bytecode.highlight_line(21)
    assert bytecode.selected_offsets() == [i.offset for i in bytecode.instructions() if i.line == 21]
    bytecode.highlight_line(999)
    assert bytecode.selected_offsets() == []


def test_set_current_marks_one_instruction(bytecode):
    model = bytecode.table.model()
    bytecode.set_current(60)
    assert bytecode.current_offset() == 60
    row = bytecode.row_of_offset(60)
    assert model.index(row, 0).data(Qt.ItemDataRole.DecorationRole) is not None
    bytecode.set_current(62)
    assert model.index(row, 0).data(Qt.ItemDataRole.DecorationRole) is None
    bytecode.set_current(None)
    assert bytecode.current_offset() is None


def test_rows_share_their_source_line_colour(bytecode):
    model = bytecode.table.model()
    for inst in bytecode.instructions():
        brush = model.index(bytecode.row_of_offset(inst.offset), 2).data(Qt.ItemDataRole.BackgroundRole)
        assert brush.color() == highlight.line_colour(inst.line)
    assert highlight.line_colour(20) != highlight.line_colour(21)


def test_breakpoint_context_menu_and_marks(qtbot, bytecode):
    row = bytecode.row_of_offset(16)
    menu = bytecode._context_menu(row)
    actions = {a.objectName(): a for a in menu.actions()}
    with qtbot.waitSignal(bytecode.sig_toggle_offset_breakpoint) as blocker:
        actions[ACTION_BREAK_OFFSET].trigger()
    assert blocker.args == ["f", 16]
    assert actions[ACTION_BREAK_OPCODE].text() == "Break on every LOAD_ATTR"
    with qtbot.waitSignal(bytecode.sig_opcode_breakpoint) as blocker:
        actions[ACTION_BREAK_OPCODE].trigger()
    assert blocker.args == ["LOAD_ATTR"]

    bytecode.set_breakpoint_offsets({16, 30})
    assert bytecode.breakpoint_offsets() == {16, 30}
    model = bytecode.table.model()
    assert model.index(row, 0).data(Qt.ItemDataRole.DecorationRole) is not None
    assert model.index(bytecode.row_of_offset(2), 0).data(Qt.ItemDataRole.DecorationRole) is None


def test_instructions_without_a_line_or_position(qtbot):
    """Rewritten/generated code may carry no positions; the view shows them and signals NO_VALUE."""
    code = seed_function_code().replace(co_linetable=b"")
    view = BytecodeView()
    qtbot.addWidget(view)
    view.show_code(code, code_key="rewritten", title="rewritten f")
    assert view.table.model().rowCount() == len(decode(code).instructions)
    with qtbot.waitSignal(view.sig_instruction_selected) as blocker:
        view.select_offset(view.instructions()[1].offset)
    assert blocker.args[0] == "rewritten"
    assert blocker.args[3:] == [NO_VALUE, NO_VALUE]

    # a line of None (the engine's generated instructions) shows empty and grey
    import dataclasses
    model = view.table.model()
    model.set_instructions([dataclasses.replace(i, line=None) for i in decode(code).instructions])
    assert model.index(0, 2).data() == ""
    assert model.index(0, 2).data(Qt.ItemDataRole.BackgroundRole).color() == highlight.line_colour(None)
    view.highlight_line(None)
    assert view.selected_offsets() == []
    view.show_code(None)
    assert view.table.model().rowCount() == 0


# -- speed and looks --------------------------------------------------------

def test_a_large_file_is_lexed_once_and_scrolling_does_not_rehighlight(qtbot, tmp_path, monkeypatch):
    """The view's work is bounded by the file, not by what the user does after: one lexing pass per
    file shown, each line coloured once, nothing re-lexed or re-coloured by moving the current line,
    scrolling or repainting (a timed check of the same fails on a loaded machine)."""
    lexed, coloured = [], collections.Counter()
    real_spans, real_block = highlight.token_spans, highlight.PygmentsHighlighter.highlightBlock
    monkeypatch.setattr(highlight, "token_spans", lambda text: lexed.append(len(text)) or real_spans(text))

    def counting_block(self, text):
        coloured[self.currentBlock().blockNumber()] += 1
        real_block(self, text)

    monkeypatch.setattr(highlight.PygmentsHighlighter, "highlightBlock", counting_block)
    big = tmp_path / "big.py"
    big.write_text(generated_source(2000))
    view = SourceView()
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    for path in (SEED, big):
        lexed.clear()
        coloured.clear()
        view.show_file(str(path))
        view.grab()
        assert len(lexed) == 1 and abs(lexed[0] - len(path.read_text())) <= 1, (path.name, lexed)
        # every line coloured once (Qt colours the first, empty, block once more as it clears the document)
        assert sorted(coloured) == list(range(view.line_count())), path.name
        assert sum(coloured.values()) <= view.line_count() + 1, (path.name, coloured.most_common(3))
    assert view.line_count() == 2000
    lexed.clear()
    coloured.clear()
    bar, first_lines = view.editor.verticalScrollBar(), set()
    for line in (1, 500, 1000, 1997, 3):
        view.set_current(line, 4, 9)
        bar.setValue(bar.maximum() * line // 2000)
        view.grab()
        first_lines.add(view.visible_lines().start)
    assert len(first_lines) == 5, first_lines  # it did scroll
    assert lexed == [] and not coloured, (lexed, sum(coloured.values()))


def test_a_long_code_object_is_decoded_once_and_only_visible_rows_are_asked_for(qtbot, tmp_path, monkeypatch):
    """The bytecode table is a lazy model: showing 10,000 instructions decodes the code once and
    asks the model only for the rows on screen."""
    import app.widgets.bytecode_view as bytecode_view
    from app.models.bytecode_model import BytecodeModel
    decoded, rows = [], set()
    real_decode, real_data = bytecode_view.decode, BytecodeModel.data
    monkeypatch.setattr(bytecode_view, "decode", lambda code: decoded.append(code) or real_decode(code))
    monkeypatch.setattr(BytecodeModel, "data", lambda self, index, role=Qt.ItemDataRole.DisplayRole:
                        rows.add(index.row()) or real_data(self, index, role))
    body = "".join(f"    x = x * {i} + len(str(x))\n" for i in range(1000))
    namespace = {}
    exec(compile(f"def long(x):\n{body}    return x\n", str(tmp_path / "long.py"), "exec"), namespace)
    code = namespace["long"].__code__
    view = BytecodeView()
    qtbot.addWidget(view)
    view.resize(700, 600)
    view.show()
    view.show_code(code)
    view.grab()
    total = len(view.instructions())
    assert decoded == [code] and total > 5000
    assert 0 < len(rows) < 200 and max(rows) < 200, (len(rows), max(rows))


def highlight_dot_x() -> int:
    from app.widgets.source_view import BREAKPOINT_AREA
    return BREAKPOINT_AREA // 2 + 1


def test_render_views_to_png(qtbot):
    """Renders the two panes as the app would show them mid-step; look at the PNGs."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    code = seed_function_code()
    source, bytecode = SourceView(), BytecodeView()
    splitter = QSplitter()
    splitter.addWidget(source)
    splitter.addWidget(bytecode)
    qtbot.addWidget(splitter)
    splitter.resize(1300, 520)
    splitter.setSizes([680, 620])
    source.show_file(str(SEED))
    bytecode.show_code(code)
    source.set_band_lines(bytecode.code_lines())
    source.set_breakpoints({20})
    bytecode.set_breakpoint_offsets({30})
    source.set_current(21, 22, 23)
    bytecode.set_current(60)
    bytecode.highlight_line(20)
    source.highlight_lines({20})
    splitter.show()
    qtbot.waitExposed(splitter)
    paths = {"source_view.png": source, "bytecode_view.png": bytecode, "source_and_bytecode.png": splitter}
    for name, widget in paths.items():
        assert widget.grab().save(str(SHOTS / name))
    # what is drawn: the current line's background and its breakpoint dot, the current instruction's row
    colours = theme.current()
    editor = source.editor
    shot = editor.viewport().grab().toImage()
    y = editor.line_top(21) + 2
    assert shot.pixelColor(shot.width() - 4, y) == QColor(colours.current_line_bg)
    gutter = source.gutter.grab().toImage()
    dot_y = editor.line_top(20) + editor.fontMetrics().height() // 2
    assert gutter.pixelColor(highlight_dot_x(), dot_y) == QColor(colours.breakpoint)
    table = bytecode.table
    row = bytecode.row_of_offset(60)
    cells = table.viewport().grab().toImage()
    assert cells.pixelColor(table.columnViewportPosition(2) + 2, table.rowViewportPosition(row) + 2) \
        == QColor(colours.current_line_bg)


def test_show_code_of_a_real_rewritten_code_object(qtbot):
    torch = pytest.importorskip("torch")
    import tracer

    def scaled(x):
        return x * 2 + 1

    opt = tracer.compile(scaled, backend="eager")
    try:
        opt(torch.ones(3))
        entry = opt.cache_entries[0]
        assert entry.code is not None
        view = BytecodeView()
        qtbot.addWidget(view)
        view.show_code(entry.code, title="rewritten")
        assert view.table.model().rowCount() == len(decode(entry.code).instructions)
        assert view.code_lines() <= set(range(entry.code.co_firstlineno, entry.code.co_firstlineno + 3))
    finally:
        tracer.reset()


def test_render_large_file_scrolled_to_png(qtbot):
    SHOTS.mkdir(parents=True, exist_ok=True)
    view = SourceView()
    qtbot.addWidget(view)
    view.resize(760, 360)
    view.show_text(generated_source(), "gen.py")
    view.set_band_lines(range(1501, 1510))
    view.set_breakpoints({1505})
    view.show()
    qtbot.waitExposed(view)
    view.set_current(1504, 13, 21)  # "range(n)"
    assert view.grab().save(str(SHOTS / "source_view_2000_lines.png"))
