"""Observations and their comparison, with no kernel and no sandbox: encoding, tolerances, order, forgery."""
import math

import nbformat
import numpy as np
import pytest
import torch

from autograder.grading.observations import (MalformedObservation, Observation, compare, compare_observations,
                                             read_observations)
from fplab.observe import MIME, encode


class AlwaysEqual:
    """What a cheat returns: equal to everything, true, and every comparison true."""

    def __eq__(self, other):
        return True

    __le__ = __ge__ = __lt__ = __gt__ = __eq__

    def __bool__(self):
        return True


class LyingStr(str):
    def strip(self, *args):
        raise ValueError("the test's source, reversed")


def obs(name, value, rtol=0.0, atol=0.0, group=None):
    return Observation(name, encode(value), rtol, atol, group)


@pytest.mark.parametrize("value", [
    None, True, 0, -7, 2**70, 0.1, -0.0, math.inf, math.nan, "text", [1, 2.5], (1, "a"), {"k": [1, None]},
    torch.tensor([1.0, math.nan, -math.inf]), torch.zeros(0, 3), torch.tensor([1, 2], dtype=torch.int64),
    torch.tensor([0.1], dtype=torch.bfloat16), torch.tensor([3.0], dtype=torch.float16), torch.tensor(True),
    torch.tensor([0.5]).to(torch.float8_e4m3fn), np.array([1.5, 2.5], dtype=np.float32), np.float64(2.0),
    torch.float16, torch.Size([2, 3]),
])
def test_every_plain_value_matches_itself_exactly(value):
    assert compare(encode(value), encode(value), 0.0, 0.0) is None


def test_values_that_differ_do_not_match():
    assert compare(encode(1), encode(2), 0, 0)
    assert compare(encode("a"), encode("b"), 0, 0)
    assert compare(encode(True), encode(1), 0, 0)  # bool is not int
    assert compare(encode(1.0), encode(1), 0, 0)  # float is not int
    assert compare(encode([1, 2]), encode((1, 2)), 0, 0)
    assert compare(encode([1, 2]), encode([1, 2, 3]), 0, 0)
    assert compare(encode({"a": 1}), encode({"a": 1, "b": 2}), 0, 0)
    assert compare(encode(None), encode(0), 0, 0)


def test_tensors_need_the_same_dtype_and_shape():
    ref = encode(torch.ones(2, 3))
    assert "not the expected torch.float32" in compare(ref, encode(torch.ones(2, 3, dtype=torch.float64)), 1.0, 1.0)
    assert "not the expected (2, 3)" in compare(ref, encode(torch.ones(3, 2)), 1.0, 1.0)
    assert compare(ref, encode(np.ones((2, 3), dtype=np.float32)), 1.0, 1.0)  # an array is not a tensor


def test_tolerances_are_relative_to_the_reference_and_absolute():
    ref = encode(torch.tensor([100.0, 0.0]))
    assert compare(ref, encode(torch.tensor([100.0 + 1e-3, 0.0])), 1e-5, 0.0) is None
    assert compare(ref, encode(torch.tensor([100.0 + 2e-3, 0.0])), 1e-5, 0.0)
    assert compare(ref, encode(torch.tensor([100.0, 1e-9])), 0.0, 1e-8) is None
    assert compare(ref, encode(torch.tensor([100.0, 1e-7])), 1e-5, 1e-8)
    assert compare(encode(1.0), encode(1.0 + 1e-12), 1e-9, 0.0) is None
    assert compare(encode(1.0), encode(1.0 + 1e-12), 0.0, 0.0)


def test_nan_where_nan_and_infinities_exactly():
    ref = encode(torch.tensor([math.nan, math.inf, -math.inf, 1.0]))
    assert compare(ref, encode(torch.tensor([math.nan, math.inf, -math.inf, 1.0])), 0, 0) is None
    assert compare(ref, encode(torch.tensor([0.0, math.inf, -math.inf, 1.0])), 1e9, 1e9)
    assert compare(ref, encode(torch.tensor([math.nan, 3e38, -math.inf, 1.0])), 1e9, 1e9)
    assert compare(ref, encode(torch.tensor([math.nan, -math.inf, -math.inf, 1.0])), 1e9, 1e9)
    assert compare(ref, encode(torch.tensor([math.nan, math.inf, -math.inf, math.nan])), 1e9, 1e9)
    assert compare(encode(math.nan), encode(math.nan), 0, 0) is None
    assert compare(encode(math.nan), encode(1.0), 1e9, 1e9)


def test_integer_tensors_are_exact_unless_a_tolerance_is_given():
    ref = encode(torch.tensor([5, 1000]))
    assert compare(ref, encode(torch.tensor([5, 1001])), 0, 0)
    assert compare(ref, encode(torch.tensor([5, 1001])), 0, 1.0) is None


def test_always_equal_objects_and_lying_subclasses_never_match():
    for ref in (1.0, "c", torch.ones(2), [1], {"a": 1}, None, True):
        assert compare(encode(ref), encode(AlwaysEqual()), 1e9, 1e9)
        assert compare(encode(ref), encode([AlwaysEqual()]), 1e9, 1e9)
    assert encode(LyingStr("c"))["t"] == "unserialisable"
    assert compare(encode("c"), encode(LyingStr("c")), 0, 0)


def test_a_raised_exception_matches_its_class_or_a_subclass():
    raised = {"t": "raised", "v": ["ValueError", "Exception", "BaseException", "object"]}
    sub = {"t": "raised", "v": ["UnicodeError", "ValueError", "Exception", "BaseException", "object"]}
    other = {"t": "raised", "v": ["TypeError", "Exception", "BaseException", "object"]}
    assert compare(raised, raised, 0, 0) is None and compare(raised, sub, 0, 0) is None
    assert "expected it to raise ValueError" in compare(raised, other, 0, 0)
    assert compare(raised, encode(None), 0, 0)


def test_messages_never_show_the_expected_value():
    why = compare(encode(torch.tensor([123456.0])), encode(torch.tensor([1.0])), 0, 0)
    assert "123456" not in why
    why = compare(encode("secret answer"), encode("mine"), 0, 0)
    assert why == "your value is not the expected one"


def test_messages_never_echo_what_the_learner_s_code_produced():
    """A value made while hidden tests were in the kernel may encode them: only its kind is named."""
    carried = "ijeefo!uftut"  # hidden text shifted by one
    for got in (encode(carried), encode([carried]), encode({carried: 1}),
                {"t": "tensor", "dtype": carried, "shape": [2], "bytes": ""},
                {"t": "tensor", "dtype": "torch.float32", "shape": [104, 105], "bytes": ""},
                {"t": "raised", "v": [f"__main__.{carried}", "builtins.Exception"]}):
        for ref in (encode("x"), encode(torch.ones(2)), encode({"k": 1}),
                    {"t": "raised", "v": ["builtins.ValueError", "builtins.Exception"]}):
            why = compare(ref, got, 0, 0) or ""
            assert carried not in why and "104" not in why, (ref, got, why)
    verdict = compare_observations([Observation("a", encode(1))], [Observation(carried, encode(1))])
    assert carried not in " ".join(verdict.problems)


def test_no_number_or_kind_the_learner_s_code_chose_reaches_a_message():
    """Counts, lengths, an item's index and the kind of value given are the learner's code's choice,
    made while hidden tests were in the kernel: a few bytes of them a submission would carry out."""
    ref = encode(torch.zeros(1000))
    for k in (1, 7, 104):
        got = torch.zeros(1000)
        got[:k] = 1
        assert compare(ref, encode(got), 0, 0) == "entries are not close enough"
    lengths = [compare(encode([1, 2, 3]), encode(list(range(n))), 0, 0) for n in (1, 104)]
    assert lengths == ["expected a list of 3 items; yours has another length"] * 2
    items = [compare(encode([1, 2, 3]), encode(got), 0, 0) for got in ([9, 2, 3], [1, 2, 9])]
    assert items[0] == items[1] == "an item: your value is not the expected one"
    kinds = {compare(encode(torch.ones(2)), encode(got), 0, 0) for got in ("a", 1, [1], None, 2.5)}
    assert len(kinds) == 1, kinds
    floods = {tuple(compare_observations([obs("a", 1)], [obs("a", 1)] * n).problems) for n in (2, 105)}
    assert len(floods) == 1, floods
    bad_tolerance = {"output_type": "display_data", "metadata": {},
                     "data": {MIME: {"name": "ijeefo!uftut", "value": encode(1), "rtol": -1}}}
    with pytest.raises(MalformedObservation) as malformed:
        read_observations({"outputs": [bad_tolerance]})
    assert "ijeefo" not in str(malformed.value)


def test_malformed_student_values_are_a_mismatch_not_a_crash():
    ref = encode(torch.ones(2))
    for bad in ({"t": "tensor", "dtype": "torch.float32", "shape": [2], "bytes": "!!"},
                {"t": "tensor", "dtype": "torch.nonsense", "shape": [2], "bytes": ""},
                {"t": "tensor", "dtype": "torch.float32", "shape": [3], "bytes": encode(torch.ones(2))["bytes"]},
                {"t": "tensor"}, {}):
        assert compare(ref, bad, 0, 0)


def test_cells_need_the_same_names_in_the_same_order():
    ref = [obs("a", 1), obs("b", 2)]
    assert compare_observations(ref, [obs("a", 1), obs("b", 2)]).fraction == 1.0
    assert compare_observations(ref, [obs("b", 2), obs("a", 1)]).fraction == 0.0  # reordered
    missing = compare_observations(ref, [obs("a", 1)])
    assert missing.fraction == 0.0 and "b: not reached" in missing.problems[0]
    extra = compare_observations(ref, [obs("a", 1), obs("b", 2), obs("b", 2)])
    assert extra.fraction == 0.0 and "more observations" in extra.problems[0]
    assert compare_observations(ref, []).fraction == 0.0
    assert compare_observations(ref, [obs("a", 1), obs("b", 3)]).fraction == 0.0


def test_tolerances_come_from_the_reference_only():
    ref = [obs("x", 1.0, rtol=0.0)]
    assert compare_observations(ref, [obs("x", 1.0 + 1e-9, rtol=1.0)]).fraction == 0.0


def test_groups_earn_their_share():
    ref = [obs("q1", "a", group="q1"), obs("q2", "b", group="q2"), obs("q3", "c", group="q3"),
           obs("q4", 3, group="q4")]
    got = [obs("q1", "a"), obs("q2", "x"), obs("q3", "c"), obs("q4", 3)]
    verdict = compare_observations(ref, got)
    assert verdict.fraction == 0.75 and len(verdict.problems) == 1 and verdict.problems[0].startswith("q2")


def cell_with(*records):
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [nbformat.v4.new_output("display_data", data={MIME: r}) for r in records]
    return cell


def test_observations_are_read_from_display_data_in_order():
    cell = cell_with({"name": "a", "value": encode(1)}, {"name": "b", "value": encode(2.0), "rtol": 0.5})
    cell.outputs.insert(1, nbformat.v4.new_output("stream", name="stdout", text="noise"))
    found = read_observations(cell)
    assert [o.name for o in found] == ["a", "b"] and found[1].rtol == 0.5


@pytest.mark.parametrize("record", [
    "not json", {"value": {"t": "none"}}, {"name": "a"}, {"name": "a", "value": {"t": "none"}, "rtol": -1},
    {"name": "a", "value": {"t": "none"}, "atol": "1"}, {"name": "a", "value": {"t": "none"}, "group": 3},
])
def test_malformed_observation_data_is_refused(record):
    with pytest.raises(MalformedObservation):
        read_observations(cell_with(record))


def test_a_forged_observation_with_a_wrong_value_fails_the_cell():
    ref = [obs("double(21)", 42)]
    forged = cell_with({"name": "double(21)", "value": encode(41)}, {"name": "double(21)", "value": encode(42)})
    assert compare_observations(ref, read_observations(forged)).fraction == 0.0


def test_one_class_that_is_two_expected_classes_matches_neither():
    mro = lambda *names: {"t": "raised", "v": [f"builtins.{n}" if n[0].isupper() and "." not in n else n for n in names]}
    missing = Observation("missing file", mro("FileNotFoundError", "OSError", "Exception", "BaseException", "object"))
    damaged = Observation("damaged file", mro("__main__.CheckpointError", "Exception", "BaseException", "object"))
    both = mro("__main__.Sneaky", "__main__.CheckpointError", "FileNotFoundError", "OSError", "Exception",
               "BaseException", "object")
    verdict = compare_observations([missing, damaged], [Observation("missing file", both), Observation("damaged file", both)])
    assert verdict.fraction == 0.0 and all("at once" in p for p in verdict.problems)
    honest = compare_observations([missing, damaged], [Observation("missing file", missing.value),
                                             Observation("damaged file", mro("__main__.Sub", "__main__.CheckpointError",
                                                                             "Exception", "BaseException", "object"))])
    assert honest.fraction == 1.0, honest.problems


def test_a_superclass_raised_elsewhere_in_the_cell_does_not_block_its_subclass():
    os_error = Observation("os", {"t": "raised", "v": ["builtins.OSError", "builtins.Exception"]})
    not_found = Observation("nf", {"t": "raised", "v": ["builtins.FileNotFoundError", "builtins.OSError",
                                                         "builtins.Exception"]})
    assert compare_observations([os_error, not_found], [os_error, not_found]).fraction == 1.0
    # but where OSError is expected, a FileNotFoundError (another class the cell expects) does not match
    assert compare_observations([os_error, not_found], [not_found, not_found]).fraction == 0.0


def test_a_flood_is_parsed_one_past_what_the_test_makes():
    """Observations past the reference's count are never parsed (a broken one there costs nothing
    more), and the cell scores 0 in the judge's words."""
    ref = [obs("double(21)", 42)]
    flood = cell_with({"name": "double(21)", "value": encode(42)}, {"name": "x", "value": encode(1)}, "not json")
    found = read_observations(flood, len(ref))
    assert len(found) == 2
    assert compare_observations(ref, found).problems == ["more observations than the test makes (made by code outside the test?)"]
