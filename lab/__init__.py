"""The local lab: real Debian hosts booted with systemd-nspawn in their own network namespaces.

`python -m lab up|down|status`. The hosts are the ones in inventories/lab/hosts.yml.
"""
