"""What scale-check verifies of the run its job wrote, and the table of its metadata rows.

    problems = run_problems(run, ["md-create", "md-stat"], 512, 16, 8)   # [] when all holds
    print(verified_text(run, ["md-create", "md-stat"], 16, 8), md_table(run), end="")

The run (read by usage.read_usage: its summary, `ranks` and `rank_map`) must be complete with
every point of the sweep 1:ranks; every phase asked must have one row per repetition at every
point and no other phase a row; rank r must sit on the node of rank r mod `nodes` and the first
`nodes` ranks on distinct nodes (mpirun's --map-by node over the emulated nodes: round-robin),
every row's `nodes` must be min(k, nodes) and its active ranks spread evenly (the counts per
node differ by at most one, node-spread placement). With metadata phases and `md_items`: the
run took the items per rank (the preset's --md-items-total replaced), and each row of md-create,
md-stat, md-read and md-remove counts k x md_items items and operations, each rank's md_items,
none stonewalled; md-mkdir and md-rmdir count one operation per folder of the point.
"""
from collections import Counter

from iosweep_tools.core.children import sweep_points

FOLDER_PHASES = ("md-mkdir", "md-rmdir")  # one operation per folder; the others per item


def _points(run, ranks):
    out = []
    if run.status_name != "complete":
        out.append(f"its status is {run.status_name}, not complete")
    want = sweep_points(ranks) * len(run.steps)  # every step sweeps them, in turn
    if list(run.attrs.get("points", [])) != want:
        out.append(f"its points are {run.attrs.get('points')}, not {want} (--sweep 1:{ranks})")
    seen = {int(k) for k in run.summary["ranks"]}
    missing = [k for k in want if k not in seen]
    if missing:
        out.append(f"no row at {', '.join(map(str, missing))} ranks")
    return out


def _phase_rows(run, asked, steps=None):
    """Every phase of `asked` (of each step's own list in `steps`, for a run of steps), once
    per repetition at every point, and no other."""
    reps = int(run.attrs["repetitions"])
    steps = steps or [asked]
    rows = Counter(
        (run.step_of_row(i), int(run.summary["ranks"][i]), run.phase_of_row(i))
        for i in range(len(run.summary))
    )
    out = []
    for step, k in sorted({(st, k) for st, k, _ in rows}):
        mine = steps[step] if step < len(steps) else []
        where = f" in step {run.step_name(step)}" if len(steps) > 1 else ""
        for phase in mine:
            if rows[(step, k, phase)] != reps:
                out.append(f"{rows[(step, k, phase)]} {phase} rows at {k} ranks{where}, not {reps}")
    extra = {p for _, _, p in rows} - set(asked)
    if extra:
        out.append(f"rows of phases it was not asked for: {', '.join(sorted(extra))}")
    return out


def _placement(run, ranks, nodes):
    """World size, nodes, and rank r on the node of rank r mod `nodes` (distinct for the first
    `nodes`): mpirun's round-robin (--map-by node)."""
    out = []
    node_of = {
        int(r): int(n)
        for r, n in zip(run.tables["rank_map"]["rank"], run.tables["rank_map"]["node"])
    }
    if sorted(node_of) != list(range(ranks)) or int(run.attrs["world_size"]) != ranks:
        out.append(
            f"its rank_map holds {len(node_of)} ranks, world size"
            f" {run.attrs['world_size']}, not {ranks}"
        )
        return out
    if int(run.attrs["n_nodes"]) != nodes or len({node_of[r] for r in range(nodes)}) != nodes:
        out.append(f"its ranks are on {run.attrs['n_nodes']} nodes, not {nodes}")
    off = [r for r in range(ranks) if node_of[r] != node_of[r % nodes]]
    if off:
        out.append(
            f"{len(off)} ranks are not round-robin over the nodes (rank {off[0]} on node"
            f" {node_of[off[0]]}, rank {off[0] % nodes} on node {node_of[off[0] % nodes]})"
        )
    return out


def _per_node(run, nodes):
    """At every row: `nodes` = min(k, nodes), k samples in `ranks`, spread evenly over the nodes."""
    s, samples = run.summary, run.tables["ranks"]
    by_point = {}
    for p, n in zip(samples["point"], samples["node"]):
        by_point.setdefault(int(p), Counter())[int(n)] += 1
    out = []
    for i in range(len(s)):
        k, used = int(s["ranks"][i]), by_point.get(int(s["point"][i]), Counter())
        q, r = divmod(k, nodes)
        want = sorted([q + 1] * r + [q] * (nodes - r) if q else [1] * r)
        got = sorted(used.values())
        if int(s["nodes"][i]) != min(k, nodes) or got != want:
            out.append(
                f"row {int(s['point'][i])} ({run.phase_of_row(i)}, {k} ranks):"
                f" nodes {int(s['nodes'][i])}, active ranks per node {got}, not"
                f" {min(k, nodes)} nodes of {sorted(set(want))}"
            )
    return out


def _md_row(run, i, items, mine):
    """The problem of metadata row `i` (its samples `mine`: ops per rank), or None."""
    s, phase = run.summary, run.phase_of_row(i)
    k, ops = int(s["ranks"][i]), int(s["ops"][i])
    where = f"{phase} at {k} ranks"
    if int(s["stonewalled"][i]):
        return f"{where} was stonewalled"
    if phase in FOLDER_PHASES:
        folders = int(s["md_folders"][i])
        return None if ops == folders else f"{where}: {ops} ops for {folders} folders"
    if int(s["md_items"][i]) != k * items or ops != k * items:
        return f"{where}: {int(s['md_items'][i])} items and {ops} ops, not {k} x {items}"
    if sorted(set(mine)) != [items]:
        return f"{where}: ranks' ops {sorted(set(mine))}, not {items} each"
    return None


def _md_counts(run, items):
    """The items per rank the run took, and every metadata row's counts."""
    out = []
    taken = (
        run.config().get("md-items"),
        run.attrs.get("md_items"),
        run.attrs.get("md_items_total"),
    )
    if taken != (str(items), items, 0):
        out.append(f"its md-items, md_items, md_items_total are {taken}, not {items} per rank")
    samples = run.tables["ranks"]
    for i in range(len(run.summary)):
        if run.is_metadata(run.phase_of_row(i)):
            mine = samples["ops"][samples["point"] == run.summary["point"][i]]
            why = _md_row(run, i, items, [int(v) for v in mine])
            if why:
                out.append(why)
    return out


def run_problems(run, phases, ranks, nodes, md_items=None, steps=None):
    """What does not hold of the run (see the module's text), each a phrase; [] when all does.
    `phases`: iosweep's names of the phases asked; `nodes` is 1 for one machine; `md_items` None
    skips the metadata counts; `steps` each step's phases for a run of steps."""
    out = _points(run, ranks) + _phase_rows(run, phases, steps) + _placement(run, ranks, nodes)
    out += _per_node(run, nodes)
    if md_items is not None:
        out += _md_counts(run, md_items)
    return out


def verified_text(run, phases, nodes, md_items=None):
    """The line that says what run_problems found to hold."""
    asked = ", ".join(phases)
    where = f"round-robin over {nodes} nodes" if nodes > 1 else "on one node"
    text = (
        f"verified: run {run.status_name}, all {len(run.attrs['points'])} points, each with"
        f" every phase asked ({asked}) x {int(run.attrs.get('repetitions') or 1)}; ranks {where},"
        " active ranks spread evenly over the nodes at every row"
    )
    if md_items is not None:
        text += (
            f"; {md_items} items per rank, every metadata row's ops = ranks x {md_items}"
            " (folders for md-mkdir, md-rmdir), none stonewalled"
        )
    return text + "; nothing left in the run's folder\n"


def md_rows(run):
    """[(ranks, phase, ops, ops/s)] of the run's metadata rows, in the summary's order (the
    phase as `step/phase` in a run of steps)."""
    s = run.summary
    return [
        (int(s["ranks"][i]), run.phase_label(i), int(s["ops"][i]), float(s["iops"][i]))
        for i in range(len(s))
        if run.is_metadata(run.phase_of_row(i))
    ]


def md_table(run):
    """The metadata rows as text: ranks, phase, ops and ops/s (every rank's operations over the
    slowest rank's window, mdtest's rate); '' without them."""
    rows = md_rows(run)
    if not rows:
        return ""
    lines = ["metadata rows (ops/s: every rank's operations / the slowest rank's window)"]
    w = max(10, *(len(phase) for _, phase, _, _ in rows))  # `step/phase` in a run of steps
    lines.append(f"{'ranks':>6}  {'phase':<{w}} {'ops':>9} {'ops/s':>12}")
    lines += [f"{k:>6}  {phase:<{w}} {ops:>9} {rate:>12.1f}" for k, phase, ops, rate in rows]
    return "".join(line + "\n" for line in lines)
