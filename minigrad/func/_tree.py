"""A small pytree (nested tuples, lists, dicts and None around leaves), enough for the
``minigrad.func`` transforms: mirrors the parts of ``torch.utils._pytree`` they use
(`tree_flatten`, `tree_unflatten`, ``TreeSpec``'s ``repr`` and ``treespec_pprint`` as they
appear in PyTorch's error messages)."""

from __future__ import annotations

LEAF = None  # the spec of a leaf is ``TreeSpec(None, None, [])`` (shown as ``*``)


class TreeSpec:
    """The structure of a tree: the node's type, its context (a dict's keys) and children."""

    def __init__(self, type_, context, children):
        self.type, self.context, self.children = type_, context, list(children)

    @property
    def num_leaves(self) -> int:
        if self.type is None:
            return 1
        return sum(c.num_leaves for c in self.children)

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, TreeSpec)
            and self.type is other.type
            and self.context == other.context
            and self.children == other.children
        )

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        inner = ""
        if self.children:
            indent += 2
            inner = self.children[0].__repr__(indent)
            inner += "," if len(self.children) > 1 else ""
            inner += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return f"TreeSpec({self.type.__name__}, {self.context}, [{inner}])"


def tree_flatten(tree) -> tuple[list, TreeSpec]:
    """``(leaves in order, spec)``; a dict's children in its key order."""
    leaves: list = []

    def walk(node):
        if isinstance(node, (tuple, list)) and type(node) in (tuple, list):
            return TreeSpec(type(node), None, [walk(c) for c in node])
        if type(node) is dict:
            return TreeSpec(dict, list(node), [walk(v) for v in node.values()])
        if node is None:
            return TreeSpec(type(None), None, [])
        leaves.append(node)
        return TreeSpec(None, None, [])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, spec: TreeSpec):
    """The tree of structure ``spec`` holding ``leaves`` (in `tree_flatten`'s order)."""
    it = iter(leaves)

    def build(s):
        if s.type is None:
            return next(it)
        if s.type is type(None):
            return None
        children = [build(c) for c in s.children]
        if s.type is dict:
            return dict(zip(s.context, children))
        return s.type(children)

    return build(spec)


class _Star:
    def __repr__(self) -> str:
        return "*"


def treespec_pprint(spec: TreeSpec) -> str:
    """The structure written as the tree with ``*`` for each leaf: ``(*,)``, ``[*, *]``."""
    return repr(tree_unflatten([_Star()] * spec.num_leaves, spec))
