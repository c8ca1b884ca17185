"""The panels that show the tracer's recorded state: thin views over app.models.

Each panel is a QWidget with `show_*`/`set_*` slots taking plain engine data
(TrackerViews, Guards, CompiledFunctions, Breakpoints) and `sig_*` signals
carrying plain values (names, lines, indexes), so the main window wires them
without any panel knowing another exists.
"""
from __future__ import annotations

import os

from PySide6.QtCore import QModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLineEdit,
                               QPlainTextEdit, QPushButton, QStyledItemDelegate, QToolButton, QTreeView,
                               QVBoxLayout, QWidget)

from app.models.row_tree_model import ITEM_ROLE, RowTreeModel, monospace_font
from app.models.rows import RowItem
from app.models.source_tree import COL_INSTALLED_AT, COL_KIND, COL_SOURCE, SourceTreeModel
from app.models.tracker_tree import COL_KIND as TRACKER_KIND
from app.models.tracker_tree import COL_NAME, COL_TYPE, COL_VALUE, TrackerTreeModel
from tracer.debug import KINDS, TraceEnd

MAX_COLUMN_WIDTH = 320  # px: long values stay readable in a tooltip instead of pushing columns off-screen
MIN_COLUMN_WIDTH = 40
ROW_PADDING = 5  # px added to each row's height: mixed proportional/monospace rows stay airy
CELL_MARGIN = 14  # px beside a cell's text: the item's own margins and some air


def _location(filename: str, line) -> str:
    return f"{os.path.basename(filename)}:{line if line is not None else '?'}"


class _PaddedDelegate(QStyledItemDelegate):
    def sizeHint(self, option, index):  # noqa: N802 - Qt override
        hint = super().sizeHint(option, index)
        return QSize(hint.width(), hint.height() + ROW_PADDING)


class TreePanel(QWidget):
    """A QTreeView over a RowTreeModel, with columns fitted to their content after each update."""

    COLUMN_CAPS: dict = {}  # column -> max width in px, beyond MAX_COLUMN_WIDTH's default

    def __init__(self, model: RowTreeModel, parent=None, *, flat: bool = False):
        super().__init__(parent)
        self.model = model
        self.view = QTreeView(self)
        self.view.setModel(model)
        self.view.setItemDelegate(_PaddedDelegate(self.view))
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(False)
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.view.setRootIsDecorated(not flat)
        self.view.setIndentation(14 if not flat else 0)
        self.view.header().setStretchLastSection(True)
        self.view.header().setSectionResizeMode(QHeaderView.Interactive)
        self.view.clicked.connect(self._on_clicked)
        self.view.doubleClicked.connect(self._on_double_clicked)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.layout_.setSpacing(2)
        self.layout_.addWidget(self.view)

    def _fit_columns(self, fresh: bool = False) -> None:
        """Size columns to their contents when there are more rows than ever fitted (or `fresh`
        content), not on every step: the stack grows and shrinks by a slot almost every step."""
        rows, columns = self.model.rowCount(), self.model.columnCount()
        fitted_rows, fitted_columns = getattr(self, "_fitted_shape", (-1, -1))
        if not fresh and columns == fitted_columns and rows <= fitted_rows:
            return
        self._fitted_shape = (max(rows, 0 if fresh else fitted_rows), columns)
        header = self.view.header()
        for column in range(self.model.columnCount() - 1):
            self.view.resizeColumnToContents(column)
            width = header.sectionSize(column)
            cap = self.COLUMN_CAPS.get(column, MAX_COLUMN_WIDTH)
            header.resizeSection(column, max(MIN_COLUMN_WIDTH, min(width + 8, cap)))

    def _on_clicked(self, index: QModelIndex) -> None:
        item = index.data(ITEM_ROLE)
        if item is not None:
            self._item_clicked(item)

    def _on_double_clicked(self, index: QModelIndex) -> None:
        item = index.data(ITEM_ROLE)
        if item is not None:
            self._item_activated(item)

    def _item_clicked(self, item: RowItem) -> None:  # overridden by panels that report clicks
        pass

    def _item_activated(self, item: RowItem) -> None:  # overridden by panels that open what a row names
        pass

    def set_font_size(self, points: float) -> None:
        """Font zoom: the rows' text, proportional and monospace alike."""
        font = self.view.font()
        font.setPointSizeF(points)
        self.view.setFont(font)
        self.model.set_font_size(points)
        self._fitted_shape = (-1, -1)
        self._fit_columns(fresh=True)

    def current_item(self) -> RowItem | None:
        return self.view.currentIndex().data(ITEM_ROLE)


# ---- 1, 2: the symbolic stack and locals ---------------------------------------------------------
class StackPanel(TreePanel):
    """The symbolic stack of the current frame, top first; rows changed since the previous step in yellow."""

    sig_source_selected = Signal(str)  # a row with a Source was clicked: "G['cfg'].scale"
    sig_node_selected = Signal(str)  # a row with an FX node was clicked: "mul"
    COLUMN_CAPS = {COL_NAME: 110, COL_VALUE: 260, TRACKER_KIND: 130, COL_TYPE: 120}

    def __init__(self, parent=None):
        super().__init__(TrackerTreeModel(), parent)

    def show_views(self, views: tuple, previous: tuple | None = None) -> None:
        """`views` is FrameView.stack (bottom first, as recorded); shown top of stack first.

        `previous` is the stack one step earlier (same order); slots are compared by
        identity at the same index from the bottom.
        """
        self.model.show_stack(tuple(views), None if previous is None else tuple(previous))
        self._expand_and_fit(fresh=previous is None)

    def _expand_and_fit(self, fresh: bool) -> None:
        if self.model.has_nested_rows():  # expanding asks every row: only when some row has children
            self.view.expandToDepth(0)
        self._fit_columns(fresh)

    def clear(self) -> None:
        self.model.set_items([])

    def _item_clicked(self, item: RowItem) -> None:
        view = item.payload
        if view is None:
            return
        if view.source:
            self.sig_source_selected.emit(view.source)
        if view.node:
            self.sig_node_selected.emit(view.node)


class LocalsPanel(StackPanel):
    """The symbolic locals of the current frame: (name, TrackerView) pairs, changes highlighted by name."""

    def show_locals(self, pairs: tuple, previous: tuple | None = None) -> None:
        self.model.show_locals(tuple(pairs), None if previous is None else tuple(previous))
        self._expand_and_fit(fresh=previous is None)

    show_views = show_locals  # same slot name as StackPanel, for uniform wiring


# ---- 3: the inlining stack --------------------------------------------------------------------------
class CallStackPanel(TreePanel):
    """Snapshot.frames, innermost first; clicking a frame reports its inlining depth."""

    sig_frame_selected = Signal(int)  # depth
    COL_FUNCTION, COL_LOCATION, COL_DEPTH, COL_INSTRUCTION = range(4)

    def __init__(self, parent=None):
        super().__init__(RowTreeModel(("Function", "Location", "Depth", "Instruction"), (1, 3),
                                      centered_columns=(2,)), parent, flat=True)

    def show_frames(self, frames: tuple) -> None:
        """`frames` is Snapshot.frames (root first, as recorded)."""
        frames = tuple(frames)
        items = []
        for position, frame in enumerate(reversed(frames)):
            instruction = f"@{frame.offset} {frame.opname} {frame.argrepr}".rstrip() if frame.opname else ""
            items.append(RowItem((frame.function, _location(frame.filename, frame.line), str(frame.depth),
                                  instruction), payload=frame.depth, bold=position == 0,
                                 tooltip=f"{frame.filename}:{frame.line} in {frame.function}"))
        self.model.set_items(items)
        self._fit_columns()

    def _item_clicked(self, item: RowItem) -> None:
        self.sig_frame_selected.emit(int(item.payload))


# ---- 4: sources and their guards ----------------------------------------------------------------------
def _row_key(item: RowItem | None) -> tuple | None:
    """A row's first-column texts from its root down: the same row in the next step's rebuilt tree."""
    key = []
    while item is not None and item.values:
        key.append(item.values[0])
        item = item.parent
    return tuple(reversed(key)) or None


class SourceTreePanel(TreePanel):
    """Every Source seen so far, each with its guards; guards the current instruction installs in yellow.

    The first column holds the source (named from its parent) or the guard's expression, so it is
    the one column that must stay readable: it takes the width the others leave.
    """

    sig_guard_selected = Signal(object)  # the Guard a row shows
    sig_source_selected = Signal(str)
    COLUMN_CAPS = {COL_KIND: 150, COL_INSTALLED_AT: 240}

    def __init__(self, parent=None):
        super().__init__(SourceTreeModel(), parent)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COL_SOURCE, QHeaderView.Stretch)
        self.view.setTextElideMode(Qt.ElideMiddle)

    def show_guards(self, guards, new_count: int = 0, extra_sources=()) -> None:
        """`guards`: the guards installed so far; the last `new_count` are new at this step.

        `extra_sources`: Source names of trackers on the stack / in locals, shown greyed when unguarded.
        """
        if self.model.is_shown(guards, new_count, extra_sources):
            return  # the same rows: nothing to redo
        folded, selected = self._folded_keys(), _row_key(self.current_item())
        scroll = self.view.verticalScrollBar().value()
        self.model.show_guards(guards, new_count, extra_sources)
        self.view.expandAll()  # new sources open; the ones the user folded stay folded
        for item in self.model.all_items():
            key = _row_key(item)
            if item.children and key in folded:
                self.view.collapse(self.model.index_of(item))
            if key == selected:
                self.view.setCurrentIndex(self.model.index_of(item))
        self.view.verticalScrollBar().setValue(scroll)
        self._fit_columns(fresh=True)

    def _folded_keys(self) -> set:
        return {_row_key(item) for item in self.model.all_items()
                if item.children and not self.view.isExpanded(self.model.index_of(item))}

    SHARES = {COL_KIND: 0.26, COL_INSTALLED_AT: 0.3}  # at most this much of the width: the rest is the first's

    def _fit_columns(self, fresh: bool = False) -> None:
        """The trailing columns fit their content, capped by a share of the width; the first stretches."""
        if fresh or not hasattr(self, "_content_widths"):
            self._content_widths = self._measure()
        available = max(200, self.view.viewport().width())
        for column, share in self.SHARES.items():
            cap = min(self.COLUMN_CAPS[column], int(available * share))
            width = self._content_widths[column] + CELL_MARGIN
            self.view.header().resizeSection(column, max(MIN_COLUMN_WIDTH, min(width, cap)))

    def _measure(self) -> dict:
        """The widest text of each trailing column, read from the rows: Qt's resizeColumnToContents asks
        every row's delegate, 170 ms a step for a transformers model's thousand guard rows."""
        plain = QFont(self.view.font())
        bold = QFont(plain)
        bold.setBold(True)
        metrics = {False: QFontMetrics(plain), True: QFontMetrics(bold)}
        widths = dict.fromkeys(self.SHARES, 0)
        for item in self.model.all_items():
            for column in widths:
                text = item.values[column] if column < len(item.values) else ""
                if text:
                    widths[column] = max(widths[column], metrics[item.bold].horizontalAdvance(text))
        return widths

    def resizeEvent(self, event):  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit_columns()

    def _item_clicked(self, item: RowItem) -> None:
        payload = item.payload
        if isinstance(payload, str):
            self.sig_source_selected.emit(payload)
        elif payload is not None:
            self.sig_guard_selected.emit(payload)


# ---- 6: compiled functions, frames, cache entries -----------------------------------------------------
def frame_role(frame) -> str:
    """root / resume / callee: how a CompiledFunction frame came to be compiled."""
    if frame.parent is None:
        return "root"
    return "resume" if frame.is_resume else "callee"


def recompile_reasons(frame) -> dict[str, str]:
    """compile id -> why that entry was compiled again (the guard that failed, with the value now)."""
    return {event.compile_id: event.reason or "" for event in frame.compile_events
            if event.kind == "recompile" and event.compile_id}


class CachePanel(TreePanel):
    """Compiled functions -> their frames -> cache entries (with why each recompiled) and compile events.

    A click selects an entry; a double-click opens the trace that made it.
    """

    sig_entry_selected = Signal(str, str)  # (frame name = code.co_name, compile id)
    sig_entry_activated = Signal(str, str)  # double-click: open that entry's trace
    COL_NAME, COL_HITS, COL_GUARDS, COL_GRAPHS, COL_DETAIL = range(5)
    COLUMN_CAPS = {COL_NAME: 230}

    def __init__(self, parent=None):
        super().__init__(RowTreeModel(("Name", "Hits", "Guards", "Graphs", "Detail"), (),
                                      centered_columns=(1, 2, 3)), parent)

    def show_functions(self, functions) -> None:
        items = []
        for function in functions:
            code = function.code
            top = RowItem((function.fn.__qualname__, "", "", "", _location(code.co_filename, code.co_firstlineno)),
                          bold=True, tooltip=f"{code.co_filename}:{code.co_firstlineno}")
            for frame in function.all_frames():
                top.add(self._frame_item(frame))
            items.append(top)
        self.model.set_items(items)
        self.view.expandAll()
        self._fit_columns(fresh=True)

    def _frame_item(self, frame) -> RowItem:
        name, count = frame.code.co_name, len(frame.cache_entries)
        node = RowItem((f"{frame_role(frame)}: {name}", "", "", "", f"{count} entr{'y' if count == 1 else 'ies'}"),
                       tooltip=f"{frame.code.co_filename}:{frame.code.co_firstlineno}")
        base = os.path.dirname(frame.code.co_filename) + os.sep  # the script's folder: paths read short
        reasons = {cid: reason.replace(base, "") for cid, reason in recompile_reasons(frame).items()}
        for entry in frame.cache_entries:
            detail, error = "", False
            if entry.became_dynamic:  # when and why a dimension went dynamic: first, it is the news
                detail = "; ".join(map(str, entry.became_dynamic))
            if entry.compile_id in reasons:
                detail = _join(detail, f"recompiled: {reasons[entry.compile_id]}")
            if entry.graph_break is not None:
                detail, error = _join(detail, f"graph break: {entry.graph_break.reason.replace(base, '')}"), True
            if entry.eager_reason:
                detail, error = _join(detail, f"eager: {entry.eager_reason}"), True
            hits = str(entry.hits)
            if not entry.hits_counted:  # torch runs the code as it is now, without asking Standin
                hits += "+"
                detail = _join(detail, "skipped from now on: later calls run as they are and are not counted")
            row = node.add(RowItem((f"[{entry.compile_id}]", hits, str(len(entry.guards)),
                                    str(len(entry.graphs)), detail.splitlines()[0] if detail else ""),
                                   payload=(name, entry.compile_id), error=error,
                                   tooltip=(detail + "\n" if detail else "") + "double-click: open its trace"))
            for text in symbol_lines(entry):
                row.add(RowItem(("symbol", "", "", "", text), dim=True, tooltip=text))
        if frame.compile_events:
            events = node.add(RowItem(("events", "", "", "", f"{len(frame.compile_events)}"), dim=True))
            for event in frame.compile_events:
                label = f"[{event.compile_id}] {event.kind}" if event.compile_id else event.kind
                events.add(RowItem((label, "", "", "", event.reason or ""),
                                   error=event.kind in ("graph_break", "eager_fallback", "cache_limit"),
                                   tooltip=str(event)))
        return node

    def entry_items(self) -> list[RowItem]:
        return [item for item in self.model.all_items() if isinstance(item.payload, tuple)]

    def _item_clicked(self, item: RowItem) -> None:
        if isinstance(item.payload, tuple):
            self.sig_entry_selected.emit(*item.payload)

    def _item_activated(self, item: RowItem) -> None:
        if isinstance(item.payload, tuple):
            self.sig_entry_activated.emit(*item.payload)


def _join(first: str, second: str) -> str:
    return f"{first}; {second}" if first else second


def symbol_lines(entry) -> list[str]:
    """`s77 = L['x'].size()[0], seen 3, range [2, 4]` for each symbol of an entry's trace."""
    shapes = getattr(entry, "shapes", None)
    if shapes is None:
        return []
    return [f"{s.name} = {s.source}, seen {s.value}, range {s.range}" for s in shapes.symbols()]


# ---- 7: graph breaks ------------------------------------------------------------------------------------
class BreaksPanel(TreePanel):
    """Every graph break of every cache entry, with the user stack; clicking jumps to the location."""

    sig_location_selected = Signal(str, int)  # (filename, line)
    COL_REASON, COL_LOCATION, COL_ENTRY = range(3)

    def __init__(self, parent=None):
        super().__init__(RowTreeModel(("Reason", "Location", "Entry"), (1,)), parent)

    def show_functions(self, functions, timelines=()) -> None:
        """`timelines`: the session's traces, where a break that made a frame run eagerly (a graph break
        in a loop: the frame is skipped, as Dynamo does) is found; Dynamo's log lists that break too."""
        items = []
        for function in functions:
            for frame in function.all_frames():
                for entry in frame.cache_entries:
                    brk = entry.graph_break
                    if brk is None:
                        if entry.eager_reason:
                            items += _eager_break_items(frame.code.co_name, entry, timelines)
                        continue
                    loc = brk.location
                    item = RowItem((brk.reason, _location(loc.filename, loc.line),
                                    f"{frame.code.co_name} [{entry.compile_id}]"),
                                   payload=(loc.filename, loc.line), error=True, tooltip=str(brk))
                    for user in brk.user_stack:
                        item.add(RowItem((f"in {user.function}", _location(user.filename, user.line), ""),
                                         payload=(user.filename, user.line), tooltip=str(user)))
                    items.append(item)
        self.model.set_items(items)
        self.view.expandAll()
        self._fit_columns()

    def _item_clicked(self, item: RowItem) -> None:
        filename, line = item.payload
        self.sig_location_selected.emit(filename, -1 if line is None else line)


def _eager_break_items(name: str, entry, timelines) -> list[RowItem]:
    """The graph breaks of the trace that decided to run a cache entry eagerly, where they happened."""
    traces = [t for t in timelines if t.frame == name and t.compile_id == entry.compile_id
              and t.ending is TraceEnd.EAGER and t.snapshots]
    items = []
    for event in (e for e in (traces[-1].events if traces else ()) if e.kind == "graph_break"):
        frame = traces[-1].snapshots[min(event.step, len(traces[-1].snapshots) - 1)].frame
        items.append(RowItem((f"{event.text.splitlines()[0]} — so the frame runs eagerly",
                              _location(frame.filename, frame.line), f"{name} [{entry.compile_id}]"),
                             payload=(frame.filename, frame.line), error=True,
                             tooltip=f"{event.text}\n{entry.eager_reason}"))
    return items


# ---- 8: breakpoints ---------------------------------------------------------------------------------------
class BreakpointsPanel(TreePanel):
    """The debugger's breakpoints: tick to enable, Remove to delete, the Add row to request a new one."""

    sig_breakpoint_toggled = Signal(int, bool)  # (index, enabled)
    sig_breakpoint_removed = Signal(int)  # index
    sig_breakpoint_requested = Signal(str, str)  # (kind: an id of tracer.debug.KINDS, text)
    COL_BREAKPOINT, COL_HITS, COL_EVERY, COL_LOG = range(4)

    def __init__(self, parent=None):
        super().__init__(RowTreeModel(("Breakpoint", "Hits", "Every Nth", "Log message"), (3,),
                                      centered_columns=(1, 2)), parent, flat=True)
        self.model.sig_check_toggled.connect(self._on_checked)
        self.kind_combo = QComboBox(self)
        for kind in KINDS:
            self.kind_combo.addItem(kind.label, kind.id)
        self.text_edit = QLineEdit(self)
        self.text_edit.setFont(monospace_font())
        self.text_edit.returnPressed.connect(self._request)
        self.add_button = QPushButton("Add", self)
        self.add_button.clicked.connect(self._request)
        self.remove_button = QToolButton(self)
        self.remove_button.setText("Remove")
        self.remove_button.setToolTip("Remove the selected breakpoint")
        self.remove_button.clicked.connect(self._remove_current)
        self.kind_combo.currentIndexChanged.connect(self._on_kind_changed)
        row = QHBoxLayout()
        row.setContentsMargins(2, 0, 2, 2)
        row.addWidget(self.kind_combo)
        row.addWidget(self.text_edit, 1)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        self.layout_.addLayout(row)
        self._on_kind_changed()

    def show_breakpoints(self, breakpoints) -> None:
        """tracer.debug Breakpoints, in the debugger's order (indexes in signals refer to it)."""
        items = []
        for index, bp in enumerate(breakpoints):
            every = "" if bp.hit_count == 1 else str(bp.hit_count)
            log = bp.log_message or ""
            text = bp.describe()
            filename = getattr(bp, "filename", None)
            if filename:  # the full path lives in the tooltip
                text = text.replace(filename, os.path.basename(filename))
            items.append(RowItem((text, str(bp.hits), every, log), payload=index, checked=bp.enabled,
                                 dim=not bp.enabled, tooltip=bp.describe() + (f"\nlogpoint: {log}" if log else "")))
        self.model.set_items(items)
        self._fit_columns()
        self.remove_button.setEnabled(bool(items))

    def _on_checked(self, item: RowItem, checked: bool) -> None:
        self.sig_breakpoint_toggled.emit(int(item.payload), checked)

    def _remove_current(self) -> None:
        item = self.current_item()
        if item is not None:
            self.sig_breakpoint_removed.emit(int(item.payload))

    def _on_kind_changed(self, *_) -> None:
        placeholder = KINDS[max(0, self.kind_combo.currentIndex())].hint
        self.text_edit.setEnabled(placeholder is not None)
        self.text_edit.setPlaceholderText(placeholder or "")

    def _request(self) -> None:
        kind = self.kind_combo.currentData()
        text = self.text_edit.text().strip() if self.text_edit.isEnabled() else ""
        if self.text_edit.isEnabled() and not text:
            self.text_edit.setFocus()
            return
        self.sig_breakpoint_requested.emit(kind, text)
        self.text_edit.clear()


# ---- 9: the log ------------------------------------------------------------------------------------------------
class LogPanel(QWidget):
    """Append-only text: events, script stdout, call-again outcomes."""

    MAX_LINES = 20_000

    def __init__(self, parent=None):
        super().__init__(parent)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setFont(monospace_font())
        self.text.setMaximumBlockCount(self.MAX_LINES)
        self.text.setLineWrapMode(QPlainTextEdit.NoWrap)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text)

    def set_font_size(self, points: float) -> None:
        font = self.text.font()
        font.setPointSizeF(points)
        self.text.setFont(font)

    def append(self, text: str) -> None:
        self.text.appendPlainText(text.rstrip("\n"))
        bar = self.text.verticalScrollBar()
        bar.setValue(bar.maximum())

    def clear(self) -> None:
        self.text.clear()

    def contents(self) -> str:
        return self.text.toPlainText()


__all__ = ["StackPanel", "LocalsPanel", "CallStackPanel", "SourceTreePanel", "CachePanel", "BreaksPanel",
           "BreakpointsPanel", "LogPanel", "frame_role", "recompile_reasons"]
