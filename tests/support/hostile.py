"""Hostile strings for the tests of what plerig writes from a file it reads
(test_hostile_text, test_tune_report): markup, an attribute breakout, a
CDATA end and terminal commands at once, each marked with the field it
was put in, and what the report writes of it."""

# what a terminal would obey: ESC (CSI, OSC), BEL, and C1's CSI as UTF-8
CONTROLS = "\x1b]0;owned\x07\x1b[2J\u009b31m"
CONTROLS_SHOWN = "\\x1b]0;owned\\x07\\x1b[2J\\xc2\\x9b31m"
RAW = (b"\x1b", b"\x07", b"\xc2\x9b")


# the short one for what a variant is matched on (its identity has a size limit)
SHORT_CONTROLS, SHORT_SHOWN = "\x1b\x07\u009b", "\\x1b\\x07\\xc2\\x9b"


def hostile(mark, short=False):
    """A string that is markup, an attribute breakout, a CDATA end and terminal
    commands at once; @mark tells which field it was."""
    if short:
        return f"<img src=x onerror=alert('{mark}')>\"]]>{SHORT_CONTROLS}"
    return (f"<script>alert('{mark}')</script><img src=x onerror=alert(1)>"
            f"\"' onmouseover=\"alert(2)]]>{CONTROLS}")


def shown(mark, short=False):
    """hostile(@mark) as the report writes it: text, and the controls as \\xHH."""
    if short:
        return f"&lt;img src=x onerror=alert(&#39;{mark}&#39;)&gt;&quot;]]&gt;" + SHORT_SHOWN
    return (f"&lt;script&gt;alert(&#39;{mark}&#39;)&lt;/script&gt;&lt;img src=x "
            f"onerror=alert(1)&gt;&quot;&#39; onmouseover=&quot;alert(2)]]&gt;"
            + CONTROLS_SHOWN)


def poison(node, marks, keep=(), short=(), keys_of=(), path=None):
    """Every string of @node (a parsed JSON document) made hostile, in place,
    but under a key in @keep; the short one under a key in @short; the keys
    of an object under a key in @keys_of too. marks[MARK] = the field's path."""
    path = path or []
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in list(items):
        where = path + [key]
        if isinstance(value, str) and key not in keep:
            mark = f"F{len(marks)}"
            marks[mark] = ".".join(map(str, where))
            node[key] = hostile(mark, key in short)
        elif isinstance(value, (dict, list)):
            poison(value, marks, keep, short, keys_of, where)
    if path and path[-1] in keys_of and isinstance(node, dict):
        for key in list(node):
            mark = f"F{len(marks)}"
            marks[mark] = ".".join(map(str, path)) + " (a key)"
            node[hostile(mark)] = node.pop(key)
