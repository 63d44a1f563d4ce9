"""scale-check --io500: the IO500 in one launch at scale (`iosweep io500` of an INI file this
module writes), and what is checked of what it left.

    text = io500_ini(work, args)                 # the INI file's text: small sizes, short stonewall
    problems = io500_problems(run, args, work)   # [] when all holds

The run must be complete with one step per IO500 phase, in the application's order, each one
point of every rank (--ranks); rank r on the node of rank r mod --nodes; the result folder must
hold result_summary.txt, result.txt, config-orig.ini and config.ini, result_summary.txt a
[RESULT] line per phase and a [SCORE ] line whose BW, MD and TOTAL are calc_score's of those
lines (to their six decimals); the data folder must hold nothing but the application's four
test folders, empty.
"""
import math

from iosweep_tools.compare import io500

ORDER = [
    "ior-easy-write",
    "mdtest-easy-write",
    "timestamp",
    "ior-hard-write",
    "mdtest-hard-write",
    "find",
    "ior-easy-read",
    "mdtest-easy-stat",
    "ior-hard-read",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
    "ior-rnd4K-easy-read",
]
BW = ["ior-easy-write", "ior-easy-read", "ior-hard-write", "ior-hard-read"]
MD = [
    "mdtest-easy-write",
    "mdtest-hard-write",
    "find",
    "mdtest-easy-stat",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
]
IOSWEEP_PHASES = ["seq-write", "seq-read", "rand-read", "md-create", "md-stat", "md-read"]
HARD_SEGMENTS = 64  # ior-hard: 64 blocks of 47008 bytes per rank
TEST_FOLDERS = ["ior-easy", "ior-hard", "mdtest-easy", "mdtest-hard"]


def io500_ini(work, args):
    """The INI file of the job: ior-easy's blockSize --size with 1 MiB transfers, ior-hard's 64
    segments, --md-items per rank for both mdtest tests, --stonewall seconds (INVALID by the
    rules: a scale check, not a ranking), no timestamp folders."""
    return (
        f"[global]\ndatadir = {work}/data\nresultdir = {work}/results\n"
        "timestamp-datadir = FALSE\ntimestamp-resultdir = FALSE\n"
        f"[debug]\nstonewall-time = {args.stonewall}\n"
        f"[ior-easy]\ntransferSize = 1m\nblockSize = {args.size}\n"
        f"[ior-hard]\nsegmentCount = {HARD_SEGMENTS}\n"
        f"[mdtest-easy]\nn = {args.md_items}\n[mdtest-hard]\nn = {args.md_items}\n"
    )


def _geomean(values):
    values = [v for v in values if v > 0]
    return math.prod(values) ** (1 / len(values)) if values else 0.0


def _summary_problems(work):
    res = work / "results"
    out = [
        f"the result folder lacks {name}"
        for name in ("result_summary.txt", "result.txt", "config-orig.ini", "config.ini")
        if not (res / name).is_file()
    ]
    if out:
        return out
    s = io500.parse(str(res))
    if list(s["phases"]) != ORDER:
        return [f"result_summary.txt's phases are {list(s['phases'])}, not the IO500's"]
    if s["score"] is None:
        return ["result_summary.txt has no [SCORE ] line"]
    bw = _geomean([s["phases"][n][0] for n in BW])
    md = _geomean([s["phases"][n][0] for n in MD])
    want = (bw, md, math.sqrt(bw * md))
    for name, got, w in zip(("BW", "MD", "TOTAL"), s["score"], want):
        if not math.isclose(got, w, rel_tol=1e-5, abs_tol=1e-6):
            out.append(f"its [SCORE ] {name} {got} is not calc_score's {w:.6f}")
    return out


def io500_problems(run, args, work):
    """What does not hold (the module's text), each a phrase; [] when all does."""
    out = []
    if run.status_name != "complete":
        out.append(f"its status is {run.status_name}, not complete")
    names = [st["name"] for st in run.steps]
    if names != ORDER:
        out.append(f"its steps are {names}, not the IO500's phases")
    ranks = sorted({int(k) for k in run.summary["ranks"]})
    if ranks != [args.ranks]:
        out.append(f"its rows are at {ranks} ranks, not {args.ranks}")
    if len(run.summary) != len(ORDER):
        out.append(f"{len(run.summary)} rows, not one per phase ({len(ORDER)})")
    out += _summary_problems(work)
    data = work / "data"
    left = sorted(
        str(p.relative_to(data))
        for p in data.rglob("*")
        if not (p.is_dir() and p.parent == data and p.name in TEST_FOLDERS)
    )
    if left:
        out.append(f"the data folder still holds {len(left)} entries ({left[0]} ...)")
    return out


def verified_text(args):
    where = f"round-robin over {args.nodes} nodes" if args.nodes else "on one node"
    return (
        f"verified: run complete, one step per IO500 phase in the application's order, each at"
        f" {args.ranks} ranks ({where}); the result files written, the score calc_score's of"
        " its own [RESULT] lines; nothing left in the data folder but the four test folders\n"
    )
