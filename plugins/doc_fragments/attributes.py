"""The attributes every module of the collection documents (check mode, diff mode), as ansible-core's
action_common_attributes describes them, and the support levels of the modules that only read."""


class ModuleDocFragment:
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check mode and report the change it would make, without changing anything.
  diff_mode:
    description: Shows what changed, or would change in check mode, with C(--diff).
"""

    READ_ONLY = r"""
options: {}
attributes:
  check_mode:
    support: full
    details: The module only reads; it runs the same in check mode and reports no change.
  diff_mode:
    support: N/A
    details: The module changes nothing.
"""
