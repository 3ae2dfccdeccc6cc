"""Griffe extension of the API pages (``extensions:`` in ``mkdocs.yml``): builtin type names
in annotations stay builtins.

Griffe resolves a name it does not find in a module in the module's *parent packages*, so the
annotation ``requires_grad: bool`` of ``minigrad.nn.parameter`` resolved to ``minigrad.bool``
(the dtype, ``minigrad._dtype.bool_``) and the parameter tables showed ``bool_``. Python looks
in the module and then in ``builtins``; this extension makes Griffe do the same for builtin
names the module itself does not define or import.
"""

from __future__ import annotations

import builtins

import griffe


def _exprs(obj):
    if isinstance(obj, griffe.Function):
        yield from (p.annotation for p in obj.parameters)
        yield obj.returns
    elif isinstance(obj, griffe.Attribute):
        yield obj.annotation


class BuiltinNames(griffe.Extension):
    """Unlink annotation names that are builtins not shadowed in their own module."""

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        stack = [pkg]
        while stack:
            obj = stack.pop()
            stack.extend(m for m in obj.members.values() if not m.is_alias)
            for expr in _exprs(obj):
                if not isinstance(expr, griffe.Expr):
                    continue
                for name in expr.iterate(flat=True):
                    if (isinstance(name, griffe.ExprName) and hasattr(builtins, name.name)
                            and not isinstance(name.parent, (str, griffe.ExprName))
                            and name.name not in obj.module.members):
                        name.parent = None
