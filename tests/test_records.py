"""`records.quick`: a frozen dataclass's quicker `__init__` behaves as the one it replaces."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import FrozenInstanceError, dataclass, field

import pytest

from saikish.records import quick


def _twins(**options: bool) -> tuple[type, type]:
    """The same frozen dataclass twice: as dataclasses makes it, and with @quick."""

    def make() -> type:
        @dataclass(frozen=True, **options)
        class Record:
            name: str
            count: int = 0
            tags: list[str] = field(default_factory=list)
            note: str = field(default="", kw_only=True)

            def __post_init__(self) -> None:
                if self.count < 0:
                    raise ValueError("count below 0")

        return Record

    return make(), quick(make())


def test_the_signature_is_the_dataclass_one() -> None:
    plain, fast = _twins()

    def shape(record: type) -> list[tuple[str, object, bool]]:
        return [(p.name, p.kind, p.default is inspect.Parameter.empty)
                for p in inspect.signature(record).parameters.values()]

    assert shape(fast) == shape(plain)
    assert inspect.signature(fast).parameters["count"].default == 0


@pytest.mark.parametrize(("args", "kwargs"), [
    (("a",), {}), (("a", 2), {}), (("a", 2, ["x"]), {}), ((), {"name": "a", "note": "n"}),
    (("a",), {"tags": ["y"], "count": 3}),
])
def test_records_made_either_way_are_equal(args: tuple[object, ...],
                                           kwargs: dict[str, object]) -> None:
    plain, fast = _twins()
    made, quickly = plain(*args, **kwargs), fast(*args, **kwargs)
    assert dataclasses.asdict(made) == dataclasses.asdict(quickly)
    assert repr(made).split("(", 1)[1] == repr(quickly).split("(", 1)[1]
    assert quickly == fast(*args, **kwargs) and quickly != fast("other")


def test_each_record_gets_its_own_default_from_a_factory() -> None:
    _, fast = _twins()
    first, second = fast("a"), fast("b")
    first.tags.append("x")
    assert second.tags == []


@pytest.mark.parametrize(("args", "kwargs", "error"), [
    ((), {}, TypeError),                      # a required field missing
    (("a", 1, [], "n"), {}, TypeError),       # a keyword-only field given by position
    (("a",), {"colour": 1}, TypeError),       # no such field
    (("a", -1), {}, ValueError),              # __post_init__ still runs
])
def test_bad_calls_fail_as_they_did(args: tuple[object, ...], kwargs: dict[str, object],
                                    error: type[Exception]) -> None:
    plain, fast = _twins()
    with pytest.raises(error):
        plain(*args, **kwargs)
    with pytest.raises(error):
        fast(*args, **kwargs)


def test_the_record_stays_frozen() -> None:
    _, fast = _twins()
    record = fast("a")
    with pytest.raises(FrozenInstanceError):
        record.name = "b"
    assert dataclasses.replace(record, count=2).count == 2


@pytest.mark.parametrize("options", [{"frozen": False}, {"frozen": True, "slots": True}])
def test_only_frozen_records_without_slots_are_taken(options: dict[str, bool]) -> None:
    @dataclass(**options)
    class Other:
        name: str

    with pytest.raises(TypeError, match="frozen dataclass without slots"):
        quick(Other)


def test_the_engine_records_are_quick() -> None:
    from saikish.engine.bash.facts import SimpleCommand, Target
    from saikish.engine.commands.parsed import Parse, Word
    from saikish.types import CommandCheck

    for record in (Word, Parse, SimpleCommand, Target, CommandCheck):
        assert "fields" in record.__init__.__code__.co_varnames, record
