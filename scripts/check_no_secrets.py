"""Fails when a log holds one of the lab's secrets: the passwords the lab inventory generates under the lab root
(lab/config.py SECRETS) or a private key. Names what leaked and where, never the value.

  python scripts/check_no_secrets.py LOG...     (make test and make demo run it on their own output)
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from lab import config  # noqa: E402

PRIVATE_KEY_MARK = "PRIVATE KEY-----"


def leaks(text, secrets):
    """[what] for each secret (name -> value) and private key found in text."""
    found = [f"the password {name}" for name, value in sorted(secrets.items()) if value and value in text]
    if PRIVATE_KEY_MARK in text:
        found.append("a private key")
    return found


def main(paths):
    secrets = config.secrets()
    if not secrets:
        print(f"check_no_secrets: no secrets in {config.SECRETS}: nothing to look for", file=sys.stderr)
        return 1
    status = 0
    for path in paths:
        found = leaks(pathlib.Path(path).read_text(errors="replace"), secrets)
        for what in found:
            print(f"check_no_secrets: {path} holds {what}", file=sys.stderr)
        status |= bool(found)
    if not status:
        print(f"check_no_secrets: none of the lab's {len(secrets)} passwords nor a private key in {', '.join(paths)}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
