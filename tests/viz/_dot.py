"""Parse the DOT that ``make_dot`` / ``torchviz.make_dot`` write and compare it id-free.

Node ids are ``str(id(obj))`` and differ run to run; here they are renamed ``N0, N1, ...`` in
order of first appearance. Two views of a drawing:

* ``canonical_source(dot)``: the statements in order with renamed ids (what golden files store,
  and what must equal torchviz's for graphs where torchviz declares every node once);
* ``rendered(dot)``: what Graphviz draws: each node's attributes after all its declarations
  (later ones win), the multiset of edges with their attributes, and the graph attributes.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s\[\]=;]+|[\[\]=]', re.S)


def _unquote(tok: str) -> str:
    if tok.startswith('"'):
        return re.sub(r'\\"', '"', tok[1:-1])
    return tok


def parse_statement(line: str):
    """``('node', id, attrs)`` or ``('edge', tail, head, attrs)`` or ``('other', text)``."""
    toks = _TOKEN.findall(line)
    if not toks or toks[0] in ("subgraph", "}", "label", "graph", "node", "edge"):
        return ("other", line.strip())
    attrs = {}
    if "[" in toks:
        i = toks.index("[")
        head, body = toks[:i], toks[i + 1:toks.index("]", i)]
        for k in range(0, len(body), 3):
            attrs[_unquote(body[k])] = _unquote(body[k + 2])
    else:
        head = toks
    if len(head) == 3 and head[1] == "->":
        return ("edge", _unquote(head[0]), _unquote(head[2]), attrs)
    if len(head) == 1:
        return ("node", _unquote(head[0]), attrs)
    return ("other", line.strip())


def _renamer():
    names: dict = {}
    return lambda i: names.setdefault(i, f"N{len(names)}")


def statements(dot) -> list:
    """The body as parsed statements with ids renamed in order of first appearance."""
    name = _renamer()
    out = []
    for line in dot.body:
        st = parse_statement(line)
        if st[0] == "node":
            out.append(("node", name(st[1]), st[2]))
        elif st[0] == "edge":
            out.append(("edge", name(st[1]), name(st[2]), st[3]))
        else:
            out.append(st)
    return out


def canonical_source(dot) -> str:
    """DOT text with ids renamed (one statement per line, newlines in labels as ``\\n``)."""
    lines = [f"graph {sorted(dot.graph_attr.items())}", f"node {sorted(dot.node_attr.items())}"]
    for st in statements(dot):
        if st[0] == "node":
            lines.append(f"{st[1]} {_fmt(st[2])}")
        elif st[0] == "edge":
            lines.append(f"{st[1]} -> {st[2]} {_fmt(st[3])}".rstrip())
        else:
            lines.append(st[1])
    return "\n".join(lines) + "\n"


def _fmt(attrs: dict) -> str:
    if not attrs:
        return ""
    return "[" + " ".join(f"{k}={v!r}" for k, v in attrs.items()) + "]"


def rendered(dot) -> dict:
    """What Graphviz draws: final node attributes, sorted edge list, graph/node attributes."""
    nodes: dict = {}
    edges = []
    for st in statements(dot):
        if st[0] == "node":
            nodes.setdefault(st[1], {}).update(st[2])
        elif st[0] == "edge":
            edges.append((st[1], st[2], tuple(sorted(st[3].items()))))
            nodes.setdefault(st[1], {})
            nodes.setdefault(st[2], {})
    return {"graph": dict(dot.graph_attr), "node_attr": dict(dot.node_attr),
            "nodes": nodes, "edges": sorted(edges)}


def declared_twice(dot) -> bool:
    """True if some node id has more than one declaration statement."""
    ids = [st[1] for st in statements(dot) if st[0] == "node"]
    return len(ids) != len(set(ids))


def clusters(dot) -> dict:
    """``{cluster label: sorted direct member ids}`` (ids renamed as in ``statements``)."""
    out: dict = {}
    stack: list = []
    for st in statements(dot):
        if st[0] == "other" and st[1].startswith("subgraph"):
            stack.append(None)
        elif st[0] == "other" and st[1].startswith("label=") and stack:
            stack[-1] = _unquote(_TOKEN.findall(st[1])[2])
            out[stack[-1]] = []
        elif st[0] == "other" and st[1] == "}":
            stack.pop()
        elif st[0] == "node" and stack and not st[2]:
            out[stack[-1]].append(st[1])
    return {k: sorted(v) for k, v in out.items()}
