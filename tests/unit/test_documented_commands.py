"""The Python commands that README.md, docs/runbooks and spark/README.md show work as written from a fresh clone with
no activated venv: each names the venv's Python, its entry point starts in a shell without the venv on PATH and
knows every option the command gives, and those that need no lab run exactly as written. (What the commands do
on the lab, the lab tests run; lab/ansible.py finds ansible-playbook for them: test_lab_ansible.py.)"""

import re
import shlex
import subprocess

import pytest

from lab.config import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs" / "runbooks").glob("*.md")), REPO / "spark" / "README.md"]
VENV_PYTHON = ".venv/bin/python"
# A Python command: environment assignments, a python, a module (-m) or a script, its arguments up to a shell operator.
PYTHON = re.compile(r"(?:[A-Z_]+=\S+ )*\S*python3? (?:-m [\w.]+|[\w./-]+\.py)(?: [^;&|`]*)?")
# Documented commands that need no lab and change nothing: run exactly as written.
AS_WRITTEN = {".venv/bin/python -m lab --help", "PYTHONPATH=. .venv/bin/python tests/chaos/report.py"}


def _is_command(text):
    """Inline code names a module (`python -m lab`) or shows a command (`python -m lab heal`)."""
    words = [w for w in text.split() if not re.fullmatch(r"[A-Z_]+=\S+", w)]
    return len(words) > (3 if words[1] == "-m" else 1)


def documented_commands():
    """(document, command) of every Python command in the docs' shell blocks (comments left out, continued lines
    joined) and in their inline code."""
    found = []
    for doc in DOCS:
        name, fence, shell = doc.relative_to(REPO), None, []
        for line in doc.read_text().splitlines():
            if line.lstrip().startswith("```"):
                fence = None if fence is not None else line.strip()[3:]
            elif fence is not None:
                if fence in ("sh", "bash", "shell"):  # other blocks are file listings and contents
                    shell.append(line)
            else:
                found += [(name, span) for span in re.findall(r"`([^`]+)`", line)
                          if PYTHON.fullmatch(span) and _is_command(span)]
        for line in "\n".join(shell).replace("\\\n", " ").splitlines():
            line = re.sub(r"(^|\s)#.*", "", line)
            found += [(name, " ".join(command.split())) for command in PYTHON.findall(line)]
    return found


def entry_point(command):
    """(the environment assignments, the words that start the command's entry point: the module, with the lab's
    subcommand, or the script)."""
    words = shlex.split(command)
    assignments = {}
    while "=" in words[0]:
        key, _, value = words.pop(0).partition("=")
        assignments[key] = value
    if words[1] != "-m":
        return assignments, words[:2]
    subcommand = words[3:4] if words[2] == "lab" and len(words) > 3 and not words[3].startswith("-") else []
    return assignments, words[:3] + subcommand


COMMANDS = documented_commands()
ENTRY_POINTS = sorted({" ".join(entry_point(c)[1]) for _, c in COMMANDS if c not in AS_WRITTEN})


def test_the_docs_python_commands_are_found():
    assert {c for _, c in COMMANDS} >= AS_WRITTEN | {".venv/bin/python -m lab spark-up"}


def test_every_documented_python_command_names_the_venvs_python():
    """A bare `python` is not the venv's without an activated venv: it lacks the kit's packages."""
    bare = [f"{doc}: {command}" for doc, command in COMMANDS if shlex.split(command)[len(entry_point(command)[0])]
            != VENV_PYTHON]
    assert not bare, "\n".join(bare)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_each_entry_point_starts_without_the_venv_and_knows_the_documented_options(entry, shell_without_venv):
    commands = [c for _, c in COMMANDS if " ".join(entry_point(c)[1]) == entry]
    assignments = entry_point(commands[0])[0]
    proc = subprocess.run([*shlex.split(entry), "--help"], cwd=REPO, env=shell_without_venv | assignments,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    unknown = {option for command in commands for option in re.findall(r"(?<![\w-])--[a-z][\w-]*", command)
               if not re.search(rf"(?<![\w-]){option}(?![\w-])", proc.stdout)}
    assert not unknown, f"{entry}: documented options its --help does not show: {sorted(unknown)}"


@pytest.mark.parametrize("command", sorted(AS_WRITTEN))
def test_the_commands_that_need_no_lab_run_as_written(command, shell_without_venv):
    proc = subprocess.run(["sh", "-c", command], cwd=REPO, env=shell_without_venv, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stdout.strip()
