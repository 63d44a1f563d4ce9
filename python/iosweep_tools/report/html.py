"""HTML pieces of iosweep-report: table cells that carry the exact stored value, numbers as
text, and the page around the sections (inline styles, a policy that forbids fetching).

Every cell showing a stored figure is made by `td` and carries where it came from:

    <td data-run="RUN" data-table="summary" data-row="3" data-field="bandwidth_Bps"
        data-point="3" data-value="1234567890.5" data-scale="1048576">1,177.4</td>

`data-value` is the stored value exactly (Python's repr of the float, the integer, the text);
the text shown is data-value / data-scale rounded for reading (MiB/s from bytes/s, µs from ns;
the column header names the unit and the scale). A figure the report derives (a mean, a sum, a
ratio) is a `derived` cell: `data-derived` says how it was made. A run attribute is
`data-table="attrs"` with `data-field` its name.
"""
import math
from html import escape

import numpy as np

MAX_ROWS = 1500  # rows of one table on the page; the rest is counted in a note
MIB = 1048576.0  # the data-scale of MiB/s from bytes/s

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1180px;padding:0 18px 60px;color:#1b1b1b;background:#fafafa}
h1{font-size:24px;margin:18px 0 4px}h2{font-size:19px;margin:30px 0 8px;border-bottom:2px solid
#ccd;padding-bottom:3px}h3{font-size:16px;margin:20px 0 6px}h4{font-size:14px;margin:14px 0 4px}
nav{font-size:13px;margin:8px 0 14px}nav a{margin-right:12px}
table{border-collapse:collapse;margin:6px 0 12px;background:#fff;font-size:12.5px}
th,td{border:1px solid #d6d6de;padding:2px 6px;text-align:right;vertical-align:top;
white-space:nowrap}
th{background:#eef0f6;font-weight:600;text-align:left}td.t,th.t{text-align:left}
td.bad{background:#fde8e8}td.good{background:#e8f6ea}td.warn{background:#fff6da}
pre{background:#fff;border:1px solid #d6d6de;padding:6px 8px;overflow-x:auto;font-size:12px;
white-space:pre-wrap;word-break:break-all}
.chart{display:inline-block;margin:6px 12px 14px 0;vertical-align:top;background:#fff;
border:1px solid #d6d6de;padding:6px;max-width:700px}
.chart svg text{font-size:11px;fill:#333}.chart .title{font-weight:600;margin-bottom:2px}
.chart figcaption{font-size:12px;color:#444;max-width:680px}
ul.legend{list-style:none;padding:0;margin:2px 0;font-size:12px}ul.legend li{margin:1px 0}
.note{color:#555;font-size:12.5px}.empty{color:#8a4b00}.runs{font-size:12.5px}
details>summary{cursor:pointer;color:#234;margin:4px 0}
.kv{display:grid;gap:2px 14px;align-items:start;font-size:12.5px;margin:6px 0 12px}
.kv>.k{font-weight:600;color:#333}.kv>.v{overflow-wrap:anywhere;min-width:0}
.kv>.h{font-weight:600;border-bottom:1px solid #ccd}
ul.words{font-size:12.5px;margin:4px 0 10px;padding-left:20px}p,li{overflow-wrap:anywhere}
.cards{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
.card{flex:0 1 562px;min-width:0;overflow-x:auto;background:#fff;border:1px solid #d6d6de;
padding:4px 8px 6px}.card h3{margin:4px 0}.card .chart{border:0;padding:0;margin:0 0 6px}
"""
# Nothing may be fetched: not a script, not a font, not an image (the charts are inline SVG).
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def exact(v):
    """The text of `data-value`: a stored value exactly."""
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode(errors="replace")
    if isinstance(v, (bool, np.bool_)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (list, tuple, np.ndarray)):
        return ",".join(exact(x) for x in v)
    return str(v)


def num(v, digits=None):
    """A number for reading: 1,234.5 / 12.346 / 0.0001234; NaN as "NaN"."""
    if isinstance(v, (bytes, str, np.bytes_)):
        return exact(v)
    if isinstance(v, (int, np.integer, bool, np.bool_)):
        return f"{int(v):,}"
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if digits is not None:
        return f"{v:,.{digits}f}"
    a = abs(v)
    if a >= 100:
        return f"{v:,.1f}"
    if a >= 1:
        return f"{v:.3f}"
    return "0" if v == 0 else f"{v:.4g}"


def _cls(c):
    return f' class="{c}"' if c else ""


def td(run, table, row, field, scale=None, digits=None, cls=None, text=None, point=None):
    """A cell holding table[row][field] of `run` (results.reader.Run); '' when the table or the
    field is missing (a cell saying so)."""
    t = run.tables.get(table)
    if t is None or field not in t.dtype.names:
        return '<td class="t note">not recorded in this file</td>'
    v = t[field][row]
    attrs = (
        f' data-run="{escape(run.id)}" data-table="{table}" data-row="{int(row)}"'
        f' data-field="{field}" data-value="{escape(exact(v))}"'
    )
    if point is not None:
        attrs += f' data-point="{int(point)}"'
    elif table == "summary":
        attrs += f' data-point="{int(t["point"][row])}"'
    if scale:
        attrs += f' data-scale="{scale!r}"'
    if text is None:
        if isinstance(v, (bytes, np.bytes_)):
            text = exact(v)
        else:
            text = num(v / scale if scale else v, digits)
    numeric = not isinstance(v, (bytes, np.bytes_, str))
    return f"<td{_cls(cls if cls else ('' if numeric else 't'))}{attrs}>{escape(text)}</td>"


def span(run, table, row, field, scale=None, digits=None, label=None):
    """An inline figure holding table[row][field] of `run`, as `td` makes a cell: `label` and
    the value shown ("device_fraction 1.000"); '' when the table or the field is missing."""
    t = run.tables.get(table)
    if t is None or field not in t.dtype.names:
        return ""
    v = t[field][row]
    attrs = (
        f' data-run="{escape(run.id)}" data-table="{table}" data-row="{int(row)}"'
        f' data-field="{field}" data-value="{escape(exact(v))}"'
    )
    if table == "summary":
        attrs += f' data-point="{int(t["point"][row])}"'
    if scale:
        attrs += f' data-scale="{scale!r}"'
    text = exact(v) if isinstance(v, (bytes, np.bytes_)) else num(v / scale if scale else v, digits)
    return f"<span{attrs}>{escape(label or field)} {escape(text)}</span>"


def kv(head, rows):
    """A list of labelled values (a label, then one value per run), laid out as a grid: a long
    value wraps inside its own box, and no other box grows with it. `head` the texts over the
    values' columns (none for a single column), `rows` [(label, [value HTML, ...])]."""
    n = max((len(v) for _, v in rows), default=1)
    style = f"grid-template-columns:max-content repeat({n},minmax(0,1fr))"
    out = [f'<div class="kv" style="{style}">']
    if head:
        out.append('<div class="h"></div>' + "".join(f'<div class="h">{x}</div>' for x in head))
    for label, values in rows:
        out.append(f'<div class="k">{escape(label)}</div>')
        out += [f'<div class="v">{v}</div>' for v in values]
    return "".join(out) + "</div>"


def attr_value(run, name, text=None):
    """A run attribute as a value of `kv`: its text in a span carrying the stored value."""
    if name not in run.attrs:
        return '<span class="note">not recorded in this file</span>'
    v = run.attrs[name]
    shown = text if text is not None else (num(v) if isinstance(v, (int, float)) else exact(v))
    return (
        f'<span data-run="{escape(run.id)}" data-table="attrs" data-field="{name}"'
        f' data-value="{escape(exact(v))}">{escape(str(shown))}</span>'
    )


def attr_td(run, name, text=None, cls="t"):
    """A cell holding the run attribute `name`."""
    if name not in run.attrs:
        return '<td class="t note">not recorded in this file</td>'
    v = run.attrs[name]
    shown = text if text is not None else (num(v) if isinstance(v, (int, float)) else exact(v))
    return (
        f'<td{_cls(cls)} data-run="{escape(run.id)}" data-table="attrs" data-field="{name}"'
        f' data-value="{escape(exact(v))}">{escape(str(shown))}</td>'
    )


def derived(value, how, digits=None, cls=None, text=None):
    """A cell holding a figure the report derived, with `data-derived` saying how."""
    shown = text if text is not None else num(value, digits)
    return (
        f'<td{_cls(cls)} data-derived="{escape(how)}" data-value="{escape(exact(value))}">'
        f"{escape(shown)}</td>"
    )


def problem_note(run, name):
    """' (the file's NAME is not usable: WHY)' when the run set table `name` aside, else ''."""
    why = run.problems.get(name)
    return f" (the file's {name} is not usable: {escape(why)})" if why else ""


def text_td(s, cls="t"):
    return f"<td{_cls(cls)}>{escape(str(s))}</td>"


def html_td(s, cls="t"):
    return f"<td{_cls(cls)}>{s}</td>"


def table(head, rows, total=None, cls=None):
    """A table: `head` the header cells' texts (HTML allowed), `rows` lists of cell HTML; when
    `total` rows existed and fewer are given, a note says so."""
    h = "".join(
        f'<th class="t">{x}</th>' if i == 0 else f"<th>{x}</th>" for i, x in enumerate(head)
    )
    body = "".join(f"<tr>{''.join(r)}</tr>" for r in rows)
    out = f"<table{_cls(cls)}><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>"
    if total is not None and total > len(rows):
        out += (
            f'<p class="note">{len(rows)} of {total} rows shown; every row is in the results'
            " file (scripts/iosweep-load FILE --csv DIR exports them all).</p>"
        )
    return out


def capped(indices):
    """(the first MAX_ROWS of `indices`, how many there were)."""
    indices = list(indices)
    return indices[:MAX_ROWS], len(indices)


def card(title, body):
    return f'<div class="card"><h3>{title}</h3>{body}</div>'


def cards(items):
    return f'<div class="cards">{"".join(items)}</div>'


def section(sid, title, body):
    return f'<section id="{sid}"><h2>{escape(title)}</h2>{body}</section>'


def p(text, cls="note"):
    return f'<p class="{cls}">{text}</p>'


def page(title, nav, sections):
    """The whole document: nothing in it is fetched or run."""
    links = "".join(f'<a href="#{sid}">{escape(name)}</a>' for sid, name in nav)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1><nav>{links}</nav>" + "".join(sections) + "</body></html>\n"
    )
