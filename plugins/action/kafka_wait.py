"""Action plugin behind the modules that wait (kafka_broker_wait_healthy, kafka_broker_safe_to_stop,
zookeeper_ensemble_info): it runs the module once per poll with wait_timeout=0 and prints a progress
line with an ETA between polls, so a long wait at 3 a.m. shows what it waits for.

The modules answer one check each: `done`, `remaining` (a count that falls to 0, for the ETA),
`progress` (one line for people) and `timeout_msg` (the failure to report if time runs out).
Each waiting module's action plugin file is a symlink to this one; self._task.action names the module.
"""

import time

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

display = Display()


def eta_text(samples):
    """ETA from the first and last (seconds, remaining) samples, or '' when nothing moved yet."""
    if not samples:
        return ""
    (t0, r0), (t1, r1) = samples[0], samples[-1]
    if r1 is None or r0 is None or r1 >= r0 or t1 <= t0:
        return ""
    rate = (r0 - r1) / (t1 - t0)
    return f", ETA ~{r1 / rate:.0f}s"


class ActionModule(ActionBase):
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        args = dict(self._task.args)
        wait_timeout = int(args.get("wait_timeout", 0))
        poll_interval = float(args.pop("poll_interval", 3))
        name = self._task.action.split(".")[-1]

        def check():
            return self._execute_module(module_name=name, module_args=dict(args, wait_timeout=0),
                                        task_vars=task_vars)

        result = check()
        if wait_timeout <= 0:
            return result
        started = time.monotonic()
        samples, last_line = [], None
        while True:
            waited = time.monotonic() - started
            if not result.get("failed") and result.get("done"):
                result["waited"] = round(waited, 1)
                return result
            line = result.get("progress") or f"cannot check yet: {result.get('msg')}"
            if not result.get("failed"):
                samples.append((waited, result.get("remaining")))
            if line != last_line or int(waited) % 30 < poll_interval:
                display.display(f"  [{name}] {line} (waited {waited:.0f}s{eta_text(samples)})")
                last_line = line
            if waited >= wait_timeout:
                break
            time.sleep(poll_interval)
            result = check()
        result["failed"] = True
        result["waited"] = round(waited, 1)
        result["msg"] = result.get("timeout_msg") or f"gave up after {wait_timeout}s: {result.get('msg')}"
        return result
