"""The checkout builds as the kafkaops.toolkit collection, and the installed collection works on its own:
ansible-doc renders every module from it and every playbook passes --syntax-check from it."""

import os
import subprocess
import sys

from lab.config import REPO

BIN = os.path.dirname(sys.executable)


def _run(args, cwd, env):
    proc = subprocess.run([os.path.join(BIN, args[0]), *args[1:]], cwd=cwd, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc.stdout


def test_the_installed_collection_documents_every_module_and_parses_every_playbook(tmp_path):
    # Outside the checkout, with only the installed copy and Ansible's own collections on the path.
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(ANSIBLE_COLLECTIONS_PATH=str(tmp_path / "collections"), ANSIBLE_NOCOLOR="1")
    _run(["ansible-galaxy", "collection", "build", str(REPO), "--output-path", str(tmp_path)], tmp_path, env)
    built = next(tmp_path.glob("kafkaops-toolkit-*.tar.gz"))
    _run(["ansible-galaxy", "collection", "install", "--no-deps", "-p", str(tmp_path / "collections"),
          str(built)], tmp_path, env)
    installed = tmp_path / "collections" / "ansible_collections" / "kafkaops" / "toolkit"
    assert not (installed / "lab").exists() and not (installed / "tests").exists()

    modules = sorted(p.stem for p in (REPO / "plugins" / "modules").glob("*.py"))
    listed = _run(["ansible-doc", "-l", "kafkaops.toolkit"], tmp_path, env)
    assert [m for m in modules if f"kafkaops.toolkit.{m}" not in listed] == []
    # One ansible-doc and one ansible-playbook for all (a process each costs seconds): every page, every playbook.
    pages = _run(["ansible-doc", *(f"kafkaops.toolkit.{m}" for m in modules)], tmp_path, env)
    assert pages.count("EXAMPLES:") == len(modules)

    playbooks = sorted(p.stem for p in (REPO / "playbooks").glob("*.yml"))
    assert "replace_broker" in playbooks and "remove_throttles" in playbooks
    _run(["ansible-playbook", "-i", "localhost,", "--syntax-check", *(f"kafkaops.toolkit.{p}" for p in playbooks)],
         tmp_path, env)
