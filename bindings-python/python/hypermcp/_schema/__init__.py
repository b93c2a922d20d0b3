"""Tool metadata from a Python signature: JSON Schemas, argument binding and result dumping.

``ToolSignature.from_function(fn)`` reads the type hints and the docstring of ``fn`` once, when the
tool is defined, and compiles them into an input schema, an output schema, a ``bind`` function that
turns JSON arguments into the Python values the function expects, and a ``dump_result`` function
that turns the return value back into JSON.

Standard library only: pydantic models are recognised by their methods (``model_json_schema``,
``model_validate``), so importing this package never imports pydantic.

One module per concept, in the order they build on each other:

- ``_errors``: ``SchemaError``, ``ArgumentError``, ``ResultError`` and the converters' ``_Invalid``;
- ``_docstrings``: descriptions from Google, NumPy and Sphinx style docstrings;
- ``_shapes``: type hints classified into shapes (what the builder and the converters switch on);
- ``_to_json``: the JSON form of a value when no type hint says what it is;
- ``_builder``: JSON Schemas from type hints (``schema_for``);
- ``_convert``: JSON -> Python (load) and Python -> JSON (dump) converters compiled per hint;
- ``_signature``: ``ToolSignature``, which puts the above together for one function.
"""

from __future__ import annotations

from ._builder import schema_for
from ._errors import ArgumentError, ResultError, SchemaError
from ._signature import ToolSignature

__all__ = ["ArgumentError", "ResultError", "SchemaError", "ToolSignature", "schema_for"]

# The public classes keep the name they had when this package was one module, so that tracebacks
# and reprs (``hypermcp._schema.SchemaError: ...``) read as before.
for _cls in (ArgumentError, ResultError, SchemaError, ToolSignature):
    _cls.__module__ = __name__
del _cls
