"""An offline stand-in for get-pip.py, for `make lint`'s ansible-test sanity run.

ansible-test makes each sanity test's virtual environment without pip, then runs get-pip.py from
ci-files.testing.ansible.com in it, a host these machines cannot reach (its error message says to save the
script in its cache by hand). The Makefile copies this file there instead, under the cache of a HOME of its
own (.cache/ansible-test). Run like get-pip.py (`python get-pip.py [pip install arguments]`, its own
--no-setuptools and --no-wheel accepted), it installs the pip the Python itself bundles (ensurepip, no
network) and then runs `pip install` with the arguments, from the package index these machines reach.
"""

import subprocess
import sys

GET_PIP_OPTIONS = ("--no-setuptools", "--no-wheel")  # get-pip.py's own options; this never installs either package


def main(args):
    # Each in its own process: ensurepip sets PIP_CONFIG_FILE=/dev/null in its environment, and pip needs the
    # machine's pip.conf (its CA certificates) to reach the index.
    subprocess.check_call([sys.executable, "-m", "ensurepip", "--upgrade"])
    pip_args = [arg for arg in args if arg not in GET_PIP_OPTIONS]
    return subprocess.call([sys.executable, "-m", "pip", "install", *pip_args])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
