"""The settings a run declares: what iosweep-compare must know to tell whether two runs' figures
can be compared (results/README.md, "Settings"). iosweep decides them from its option table and
stores them with every run (the `settings` attribute, TOML); for a run recorded before it did,
the binary makes the same table from the run's recorded configuration (`iosweep settings
RESULTS:RUN_ID`). No list of options is kept here.

    for s in declared(run): s.attribute, s.what, s.phases, s.compared(run), s.text(run)

Each setting is keyed by the run attribute holding its value; `phases` are the phases whose
figures it changes (their enum names); its value is that attribute's, or the one the binary
decided (`value`: how many folders --dir had, not their paths); it is shown as the attribute
`shown` names when it has one (fsync's phases rather than its switch), in binary units when its
`unit` is bytes.
"""
import tomllib
from dataclasses import dataclass

from iosweep_tools.core.children import ChildError, run_child
from iosweep_tools.core.install import find_binary
from iosweep_tools.core.launch import launch_env
from iosweep_tools.core.text import one_line, size_text
from iosweep_tools.results.file import ResultsError

TIMEOUT_S = 60  # iosweep settings reads one run's configuration


@dataclass(frozen=True)
class Setting:
    attribute: str
    what: str
    option: str
    phases: frozenset
    shown: str = ""
    value: str = None
    unit: str = ""

    def compared(self, run):
        """The value two runs must share: the one the binary decided, else the attribute's
        (None when the run does not record it)."""
        return self.value if self.value is not None else run.attrs.get(self.attribute)

    def text(self, run):
        """The value as the comparison shows it."""
        if self.value is not None:
            return self.value
        v = run.attrs.get(self.shown or self.attribute)
        if v is None:
            return "not recorded"
        if self.unit == "bytes" and not self.shown:
            try:
                return size_text(int(v))
            except (TypeError, ValueError):
                pass
        return str(v) if str(v) != "" else "none"


def parse(text, where):
    """[Setting] of a `settings` TOML text; ResultsError naming `where` when it is not one."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ResultsError(f"{where}: its settings are not TOML ({e})") from None
    out = []
    for attribute, e in table.items():
        if not isinstance(e, dict) or not isinstance(e.get("what"), str):
            raise ResultsError(f"{where}: setting '{one_line(attribute)}' has no name (what)")
        phases = e.get("phases", [])
        if not isinstance(phases, list) or not all(isinstance(p, str) for p in phases):
            raise ResultsError(f"{where}: setting '{one_line(attribute)}' has no phase list")
        value = e.get("value")
        out.append(
            Setting(
                attribute,
                e["what"],
                str(e.get("option", "")),
                # The binary names phases by the file's enum (md_create); readers by name
                # (md-create, names.phase_names).
                frozenset(p.replace("_", "-") for p in phases),
                str(e.get("shown", "")),
                None if value is None else str(value),
                str(e.get("unit", "")),
            )
        )
    return out


def from_binary(run, binary=None):
    """The settings text `iosweep settings PATH:RUN_ID` makes of a run recorded before runs
    stored them (30 s and 1 MiB of output at most). Raises ResultsError saying why not."""
    binary = binary or find_binary()
    cmd = [str(binary), "settings", f"{run.path}:{run.id}"]
    where = f"'{run.path}' run {run.id}"
    try:
        p = run_child(cmd, timeout=TIMEOUT_S, env=launch_env(), limit=1 << 20)
    except ChildError as e:
        raise ResultsError(
            f"{where} records no settings, and {binary} settings failed: {e}"
        ) from None
    except OSError as e:
        raise ResultsError(
            f"{where} records no settings (written before iosweep stored them), and {binary}"
            f" cannot be run to make them from its configuration ({e.strerror})"
        ) from None
    if p.returncode != 0:
        said = [ln for ln in p.stderr.splitlines() if ln.strip()]
        why = one_line(said[0].removeprefix("iosweep: ")) if said else f"exit {p.returncode}"
        raise ResultsError(f"{where} records no settings, and {binary} settings refused: {why}")
    return p.stdout


def declared(run, binary=None):
    """[Setting] the run declares: its `settings` attribute, or for a run recorded before it
    the table iosweep makes of its configuration (`binary`: the iosweep to ask; the one the
    commands run by default)."""
    text = run.attrs.get("settings")
    where = f"'{run.path}' run {run.id}"
    if text is None:
        text, where = from_binary(run, binary), f"{where} (iosweep settings)"
    return parse(str(text), where)
