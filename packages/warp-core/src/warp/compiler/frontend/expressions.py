"""The expression visitor of the frontend: Python expressions in kernel code -> IR values.

``ExpressionsMixin.expr`` returns an ``ir.Value`` or a ``PyObj`` (a compile-time Python object).
Each kind of expression has its module, a mixin composed here:

- :mod:`~warp.compiler.frontend.python_values`: the dispatch, literals, Python values as constants
- :mod:`~warp.compiler.frontend.name_lookup`: names and attributes
- :mod:`~warp.compiler.frontend.operators`, :mod:`~warp.compiler.frontend.branches`: operators,
  comparisons, ``and``/``or``, ``x if c else y``
- :mod:`~warp.compiler.frontend.subscripts`, :mod:`~warp.compiler.frontend.array_slicing`: indexing
- :mod:`~warp.compiler.frontend.call_dispatch`: calls
- :mod:`~warp.compiler.frontend.tuples`, :mod:`~warp.compiler.frontend.compile_time`: tuples,
  ``wp.static`` and the other compile-time forms
"""

from __future__ import annotations

from warp.compiler.frontend.call_dispatch import CallDispatchMixin
from warp.compiler.frontend.operators import OperatorsMixin
from warp.compiler.frontend.subscripts import SubscriptsMixin


class ExpressionsMixin(CallDispatchMixin, OperatorsMixin, SubscriptsMixin):
    """Visitor methods for expressions; ``expr`` returns an ir.Value or a PyObj."""
