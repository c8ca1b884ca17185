"""What-if (`tracer/guards/whatif.py`): the prediction's exact words and fields, new tensor shapes
keeping every other property, and undoable edits of names, attributes and items."""
import functools
import re
import types

import pytest
import torch

import tracer
from tracer.guards.whatif import Prediction, StateEditor, predict, reshaped


@pytest.fixture(autouse=True)
def _fresh():
    tracer.reset()
    yield
    tracer.reset()


class Config:
    def __init__(self):
        self.scale = 2


CFG = Config()
TABLE = {"a": 1}
ITEMS = [10, 20]


def scaled(x, y=None):
    return x * CFG.scale


def no_tensor_op(n):
    return n + 1


def test_a_hit_says_which_entry_runs_and_how():
    assert str(Prediction("0/1")) == "cache hit: entry [0/1] runs its compiled code"
    assert str(Prediction("1/0", runs_eagerly=True)) == "cache hit: entry [1/0] runs eagerly (the frame is skipped)"
    assert not Prediction("0/0").recompiles


def test_a_miss_lists_each_entrys_first_failure():
    miss = Prediction(None, failures=[("0/1", "a"), ("0/0", "b")])
    assert miss.recompiles
    assert str(miss) == "recompile\n  [0/1] a\n  [0/0] b"
    full = Prediction(None, failures=[("0/0", "a")], cache_limit_reached=True)
    assert not full.recompiles
    assert str(full) == "cache limit reached: runs eagerly\n  [0/0] a"


def test_predict_names_the_newest_entry_that_matches_and_the_failures_before_it():
    opt = tracer.compile(scaled, cache_size_limit=3)
    opt(torch.ones(3))
    opt(torch.ones(4, 2))  # a second entry: the first one's rank guard fails
    newest = opt.cache_entries[-1].compile_id
    hit = predict(opt, (torch.ones(4, 2),))
    assert (hit.hit, hit.runs_eagerly, hit.failures, hit.cache_limit_reached) == (newest, False, [], False)
    older = predict(opt, (torch.ones(3),))
    assert older.hit == opt.cache_entries[0].compile_id
    assert [cid for cid, _ in older.failures] == [newest]
    assert older.failures[0][1] == opt.cache_entries[-1].guards.first_failure({"x": torch.ones(3), "y": None},
                                                                             scaled.__globals__)
    miss = predict(opt, (torch.ones(2, 2, 2),), {})
    assert miss.hit is None and miss.recompiles and not miss.cache_limit_reached
    assert [cid for cid, _ in miss.failures] == [e.compile_id for e in reversed(opt.cache_entries)]
    assert all(reason and reason != "?" for _, reason in miss.failures)


def test_predict_passes_keyword_arguments_to_the_guards():
    opt = tracer.compile(scaled)
    opt(torch.ones(3), y=1)
    assert predict(opt, (torch.ones(3),), {"y": 1}).hit == "0/0"
    assert predict(opt, (), {"x": torch.ones(3), "y": 1}).hit == "0/0"


def test_the_cache_limit_is_reached_exactly_at_the_limit():
    opt = tracer.compile(scaled, cache_size_limit=2)
    opt(torch.ones(3))
    below = predict(opt, (torch.ones(2, 2),))
    assert below.recompiles and not below.cache_limit_reached
    opt(torch.ones(2, 2))
    at = predict(opt, (torch.ones(2, 2, 2),))
    assert at.cache_limit_reached and not at.recompiles and at.hit is None


def test_a_skipped_frame_is_predicted_to_run_eagerly():
    opt = tracer.compile(no_tensor_op)
    opt(1)
    assert opt.cache_entries[0].eager_reason is not None
    prediction = predict(opt, (5,))
    assert prediction.hit == "0/0" and prediction.runs_eagerly


def test_arguments_python_would_reject_are_an_error_naming_the_function():
    opt = tracer.compile(scaled)
    opt(torch.ones(3))
    with pytest.raises(TypeError, match=r"^scaled\(\) would reject these arguments$"):
        predict(opt, (1, 2, 3))


def test_reshaped_changes_only_the_named_tensors_shapes():
    opt = tracer.compile(scaled)
    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    y = torch.ones(2, dtype=torch.int32)
    assert reshaped(opt, (x,), {"y": y}, {}) == ((x,), {"y": y})
    args, kwargs = reshaped(opt, (x,), {"y": y}, {"x": [4, 5], "y": (6,)})
    assert kwargs == {}  # bound as Python binds them: y is positional-or-keyword
    new_x, new_y = args
    assert (new_x.shape, new_x.dtype, new_x.requires_grad) == ((4, 5), torch.float64, True)
    assert (new_y.shape, new_y.dtype, new_y.requires_grad) == ((6,), torch.int32, False)
    assert torch.equal(new_y, torch.zeros(6, dtype=torch.int32))
    assert not reshaped(opt, (x.detach(),), {}, {"x": (2,)})[0][0].requires_grad


def test_reshaped_keeps_a_bound_methods_self_out_of_the_arguments():
    class Model:
        def forward(self, x, k=1):
            return x * k
    model = Model()
    opt = tracer.compile(model.forward)
    args, kwargs = reshaped(opt, (torch.ones(3),), {"k": 2}, {"x": (7,)})
    assert len(args) == 2 and args[0].shape == (7,) and args[1] == 2 and kwargs == {}


def test_reshaping_a_non_tensor_is_an_error_naming_it():
    opt = tracer.compile(scaled)
    with pytest.raises(ValueError, match=r"^'y' is not a tensor argument of scaled$"):
        reshaped(opt, (torch.ones(3),), {"y": 2}, {"y": (2,)})
    with pytest.raises(ValueError, match="'nope' is not a tensor argument"):
        reshaped(opt, (torch.ones(3),), {}, {"nope": (2,)})


@pytest.fixture
def editor():
    saved = (CFG.__dict__.copy(), dict(TABLE), list(ITEMS))
    with StateEditor(globals()) as editor:
        yield editor
    assert (CFG.__dict__, TABLE, ITEMS) == saved  # leaving the block undid everything


def test_each_edit_records_its_path_old_and_new_values(editor):
    assert editor.set("CFG.scale", 5) == editor.history[-1][0]
    edit = editor.history[-1][0]
    assert (edit.path, edit.old, edit.new, CFG.scale) == ("CFG.scale", 2, 5, 5)
    edit = editor.set("TABLE['a']", 7)
    assert (edit.old, edit.new, TABLE["a"]) == (1, 7, 7)
    edit = editor.set("ITEMS[1]", 21)
    assert (edit.old, edit.new, ITEMS) == (20, 21, [10, 21])
    edit = editor.set_expression("TABLE['b']", "TABLE['a'] * 2")
    assert (edit.old, edit.new, TABLE["b"]) == (None, 14, 14)
    assert editor.get("TABLE['b'] + 1") == 15 and editor.evaluate("CFG.scale * 10") == 50


def test_undo_restores_in_reverse_and_removes_what_was_added(editor):
    editor.set("CFG.scale", 3)
    editor.set("CFG.scale", 4)
    editor.set("CFG.added", 1)
    editor.set("TABLE['new']", 2)
    editor.set("NEW_GLOBAL", 3)
    assert editor.undo().path == "NEW_GLOBAL" and "NEW_GLOBAL" not in globals()
    assert editor.undo().path == "TABLE['new']" and "new" not in TABLE
    assert editor.undo().path == "CFG.added" and "added" not in CFG.__dict__
    assert editor.undo().new == 4 and CFG.scale == 3
    assert editor.undo().new == 3 and CFG.scale == 2
    assert editor.undo() is None and editor.history == []


def test_undo_all_empties_the_history(editor):
    editor.set("CFG.scale", 3)
    editor.set("TABLE['a']", 9)
    editor.undo_all()
    assert editor.history == [] and CFG.scale == 2 and TABLE == {"a": 1}


def test_an_item_of_a_list_out_of_range_or_a_wrong_key_type_is_missing(editor):
    with pytest.raises(IndexError):
        editor.set("ITEMS[5]", 1)  # nothing to undo: the assignment itself fails
    with pytest.raises(TypeError):
        editor.set("ITEMS['k']", 1)
    assert editor.history == []


def test_only_names_attributes_and_items_can_be_assigned(editor):
    for path in ("CFG.scale + 1", "f(x)", "1"):
        with pytest.raises(ValueError, match="^" + re.escape(f"cannot assign to {path!r}: use a name, an attribute or an item") + "$"):
            editor.set(path, 3)


def test_a_typo_in_a_typed_value_or_path_is_a_syntax_error_from_the_guard_editor(editor):
    for read in (editor.evaluate, editor.get):
        with pytest.raises(SyntaxError) as error:
            read("CFG.scale +")
        assert error.value.filename == "<guard editor>"  # what the editor's message names


def test_reshaped_keeps_each_tensors_device():
    opt = tracer.compile(scaled)
    x, y = torch.ones(3, device="meta"), torch.ones(2, dtype=torch.int64, device="meta")
    new_x, new_y = reshaped(opt, (x, y), {}, {"x": (4,), "y": (5,)})[0]
    assert (new_x.device.type, new_x.shape, new_y.device.type, new_y.dtype) == ("meta", (4,), "meta", torch.int64)


def rename_the_parameter(inner):
    @functools.wraps(inner)
    def wrapper(t):
        return inner(t)
    return wrapper


@rename_the_parameter
def wrapped(x):
    return x + 1


def test_reshaped_names_the_compiled_frames_own_parameters_not_a_wrapped_functions():
    opt = tracer.compile(wrapped)
    (new,), _ = reshaped(opt, (torch.ones(3),), {}, {"t": (6,)})
    assert new.shape == (6,)
    with pytest.raises(ValueError, match="'x' is not a tensor argument"):
        reshaped(opt, (torch.ones(3),), {}, {"x": (6,)})


def test_a_global_is_set_and_restored_by_name(editor):
    edit = editor.set("TABLE", {"z": 0})
    assert edit.old == {"a": 1} and TABLE == {"z": 0} and globals()["TABLE"] is edit.new
    edit = editor.set("ADDED_GLOBAL", 3)
    assert edit.old is None and globals()["ADDED_GLOBAL"] == 3
    del globals()["ADDED_GLOBAL"]  # the program removed it meanwhile: undoing the addition is a no-op
    editor.undo()
    assert "ADDED_GLOBAL" not in globals()
    editor.undo()
    assert TABLE == {"a": 1}


def test_an_entry_that_fails_without_a_guard_to_name_is_marked_with_a_question_mark():
    class Unnamed:  # a check that fails while no single guard does (it raised, say)
        def check(self, f_locals, f_globals):
            return False

        def first_failure(self, f_locals, f_globals):
            return None
    entry = types.SimpleNamespace(compile_id="0/0", guards=Unnamed(), eager_reason=None)
    compiled = types.SimpleNamespace(bind=lambda args, kwargs: {}, fn=scaled, cache_entries=[entry],
                                     cache_size_limit=8)
    assert predict(compiled).failures == [("0/0", "?")]
