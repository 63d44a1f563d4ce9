"""The package iosweep_tools keeps its layers (docs/architecture.md, "The Python side"): every
import of every module, function-local ones included, read from its AST, goes to its own
sub-package or to one its row of LAYERS allows; nothing imports a command line module; the
import graph has no circle; a library neither prints nor exits; no module re-exports another's
names or gives a function a second name. And the Python examples of docs/architecture.md are
the code, as DocsArchitecture.ExamplesAreTheCode checks the C++ ones."""
import ast
import re

import pytest

from conftest import SOURCE_DIR

PACKAGE = SOURCE_DIR / "python" / "iosweep_tools"

# What each sub-package may import besides itself: the table of docs/architecture.md.
LAYERS = {
    "core": set(),
    "results": {"core"},
    "compare": {"core", "results"},
    "report": {"core", "results", "compare"},
    "plot": {"core", "results", "compare"},
    "dfsbed": {"core"},
    "bench": {"core", "results", "compare", "dfsbed"},
    "threadlist": {"core"},
}
COMMAND = "iosweep_tools.core.command"  # the top level of every command: the cli modules' alone


def doc_layers():
    """{sub-package: the sub-packages it may import} as the table of docs/architecture.md's
    "The Python side" says."""
    text = (SOURCE_DIR / "docs" / "architecture.md").read_text()
    start = text.index("| sub-package | holds | may import |")
    rows = text[start : text.index("\n\n", start)].splitlines()[2:]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    names = {c[0].rstrip("/") for c in cells if c[0].endswith("/")}
    return {
        c[0].rstrip("/"): set(re.findall(r"`([a-z_]+)`", c[-1])) & names
        for c in cells
        if c[0].endswith("/")
    }


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
TREES = {name: ast.parse(path.read_text(), str(path)) for name, path in MODULES.items()}


def is_cli(name):
    return name.rsplit(".", 1)[-1] == "cli"


def layer(name):
    """The sub-package of a module (_layout, written at install time, is core's)."""
    part = name.split(".")[1] if "." in name else ""
    return "core" if part == "_layout" else part


def imports(name):
    """[(line, module imported)] of every import of the module, wherever it is, resolved to a
    module of the package (`from a import b` is a.b when that is a module) or left as named."""
    out = []
    for node in ast.walk(TREES[name]):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{name}:{node.lineno}: a relative import"
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                module = sub in MODULES or sub == "iosweep_tools._layout"
                out.append((node.lineno, sub if module else node.module))
    return out


def package_imports(name):
    return [(line, m) for line, m in imports(name) if m.split(".")[0] == "iosweep_tools"]


def test_the_layers_are_the_table_of_the_architecture_page():
    assert doc_layers() == LAYERS


def test_every_command_is_a_cli_module_its_launcher_and_its_entry_point_run():
    assert set(LAYERS) == {layer(m) for m in MODULES} - {""}
    clis = {m for m in MODULES if is_cli(m)}
    text = (SOURCE_DIR / "pyproject.toml").read_text()
    entry = dict(re.findall(r'^([a-z0-9-]+) = "(iosweep_tools[\w.]*):main"$', text, re.M))
    assert len(entry) == 14 and set(entry.values()) == clis
    for launcher, module in entry.items():
        shim = (SOURCE_DIR / "scripts" / launcher).read_text()
        pkg, _, leaf = module.rpartition(".")
        assert f"from {pkg} import {leaf}  # noqa: E402\n\nsys.exit({leaf}.main())\n" in shim
        assert len(shim.splitlines()) <= 20, f"scripts/{launcher} is more than a launcher"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_import_follows_the_layers(name):
    mine = layer(name)
    for line, target in package_imports(name):
        where = f"{MODULES[name]}:{line}: {name} imports {target}"
        assert target in MODULES or target == "iosweep_tools._layout", where
        assert not is_cli(target), f"{where}, a command line module"
        if target == COMMAND:
            assert is_cli(name), f"{where}: only a command line module runs a command"
        theirs = layer(target)
        assert theirs == mine or theirs in LAYERS[mine], f"{where}: {mine} may not import {theirs}"


def test_the_import_graph_has_no_circle():
    graph = {m: {t for _, t in package_imports(m) if t in MODULES} for m in MODULES}
    done, path = set(), []

    def visit(m):
        if m in path:
            circle = path[path.index(m) :] + [m]
            pytest.fail("import circle: " + " -> ".join(circle))
        if m in done:
            return
        path.append(m)
        for t in sorted(graph[m]):
            visit(t)
        path.pop()
        done.add(m)

    for m in sorted(graph):
        visit(m)
    assert len(done) == len(MODULES)


def calls(name):
    """[(line, dotted name of the function called)] of every call in the module."""
    out = []
    for node in ast.walk(TREES[name]):
        if isinstance(node, ast.Call):
            f, parts = node.func, []
            while isinstance(f, ast.Attribute):
                parts.insert(0, f.attr)
                f = f.value
            if isinstance(f, ast.Name):
                out.append((node.lineno, ".".join([f.id] + parts), node))
    return out


@pytest.mark.parametrize("name", sorted(MODULES))
def test_libraries_raise_and_only_commands_print(name):
    for line, fn, node in calls(name):
        where = f"{MODULES[name]}:{line}: {fn}"
        assert fn not in ("sys.exit", "exit", "quit", "os._exit"), f"{where}: the launcher exits"
        if is_cli(name):
            continue
        to_stderr = any(k.arg == "file" for k in node.keywords)
        if name == COMMAND and fn == "print" and to_stderr:
            continue  # the one line of core.command.said
        assert fn not in (
            "print",
            "sys.stderr.write",
            "sys.stdout.write",
        ), f"{where}: a library returns text or raises (core.errors.Stop); its command prints"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_re_exports_or_renames_a_function(name):
    tree = TREES[name]
    if MODULES[name].name == "__init__.py":
        assert not any(
            isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(tree)
        ), f"{MODULES[name]}: a package's __init__ holds its docstring alone"
    assert "__all__" not in {t.id for n in ast.walk(tree) for t in getattr(n, "targets", [])
                             if isinstance(t, ast.Name)}  # fmt: skip
    text = MODULES[name].read_text()
    for i, line in enumerate(text.splitlines(), 1):
        if "noqa: F401" in line:
            assert line.strip().startswith("import PIL"), f"{MODULES[name]}:{i}: a re-export"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module.startswith("iosweep_tools"):
            for a in node.names:
                renamed = a.asname and a.asname != a.name
                module = f"{node.module}.{a.name}" in MODULES
                assert not renamed or module, (
                    f"{MODULES[name]}:{node.lineno}: {a.name} imported as {a.asname}: one name "
                    "per function"
                )


# ------------------------------------------------------------------- the worked examples


def examples(markdown):
    """[(file, code, line)] of every fenced block marked ```python FILE."""
    out, current = [], None
    for n, line in enumerate(markdown.splitlines(), 1):
        t = line.strip()
        if current is None and t.startswith("```python "):
            current = [t.removeprefix("```python ").strip(), [], n]
        elif current is not None and t == "```":
            out.append((current[0], "\n".join(current[1]), current[2]))
            current = None
        elif current is not None:
            current[1].append(line)
    return out


def normalized(text):
    return "\n".join(line.strip() for line in text.splitlines()) + "\n"


def test_the_python_examples_of_the_architecture_page_are_the_code():
    found = examples((SOURCE_DIR / "docs" / "architecture.md").read_text())
    assert len(found) >= 3, "docs/architecture.md lost its Python examples"
    for file, code, line in found:
        path = SOURCE_DIR / file
        assert path.is_file(), f"docs/architecture.md:{line}: no file {file}"
        assert normalized(code) in normalized(
            path.read_text()
        ), f"docs/architecture.md:{line}: this example is not in {file} as written:\n{code}"
