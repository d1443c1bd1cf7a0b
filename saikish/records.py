"""Frozen dataclasses that are quick to make.

A frozen dataclass's `__init__` sets each field through `object.__setattr__` (its own
`__setattr__` refuses): a global lookup, an attribute lookup and a call per field. The
engine makes hundreds of thousands of such records per thousand commands (words, parses,
checks), and that was the largest single cost in its profile. `quick` gives a frozen
dataclass an `__init__` with the same signature and behaviour that writes the instance's
`__dict__` directly, in under half the time. The record stays frozen.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def quick(cls: type[T]) -> type[T]:
    """`cls`, a frozen dataclass without slots, with the quicker `__init__` (put it above
    `@dataclass(frozen=True)`). Fields with `init=False` or `InitVar` are not supported."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__name__}: @quick takes a frozen dataclass without slots")
    names: dict[str, Any] = {"MISSING": dataclasses.MISSING}
    signature: list[str] = []
    body: list[str] = []
    keyword_only = False
    for f in dataclasses.fields(cls):  # type: ignore[arg-type] # a dataclass, checked above
        if not f.init:
            raise TypeError(f"{cls.__name__}.{f.name}: @quick needs every field in __init__")
        if f.kw_only and not keyword_only:
            signature.append("*")
            keyword_only = True
        value = f.name
        if f.default is not dataclasses.MISSING:
            names[f"_default_{f.name}"] = f.default
            signature.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            names[f"_factory_{f.name}"] = f.default_factory
            signature.append(f"{f.name}=MISSING")
            value = f"_factory_{f.name}() if {f.name} is MISSING else {f.name}"
        else:
            signature.append(f.name)
        body.append(f"    fields[{f.name!r}] = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = (f"def __init__(self, {', '.join(signature)}):\n"
              f"    fields = self.__dict__\n" + "\n".join(body) + "\n")
    exec(source, names)  # noqa: S102 - code built above from the field names alone
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    setattr(cls, "__init__", init)  # noqa: B010 - a method replaced on the class
    return cls
