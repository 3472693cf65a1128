"""Action plugin behind the modules that wait (kafka_broker_wait_healthy, kafka_broker_safe_to_stop,
zookeeper_ensemble_info, kafka_quorum_info): it runs the module once per poll with wait_timeout=0 and prints a progress
line with an ETA between polls, so a long wait at 3 a.m. shows what it waits for.

The modules answer one check each: `done`, `remaining` (a count that falls to 0, for the ETA),
`progress` (one line for people) and `timeout_msg` (the failure to report if time runs out). A failed
check is retried only when the module marks it `retryable` (the cluster may answer later); any other
failure (a name that does not resolve, a refused login, bad arguments) ends the wait at once.
Each waiting module's action plugin file is a symlink to this one; self._task.action names the module.
The loop is wait(), a plain function of the module call and the clock, so unit tests can drive it.
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


# Failed checks are retried only when the module says waiting may fix them (retryable), and for at most
# this long in a row: a cluster that refuses every connection for longer is not "not yet".
ERROR_GRACE_SECONDS = 60
# Kafka's LogDirsCommand (a JVM run) for the bytes still to copy: at most this often.
BYTES_INTERVAL_SECONDS = 15


def wait(execute, args, name, now=time.monotonic, sleep=time.sleep):
    """Run the module's check until it is done, fails in a way waiting cannot fix, or wait_timeout runs out.

    execute(module_args) runs the module once and returns its result; args are the task's arguments; name is
    the module's short name for the progress lines; now() and sleep(seconds) are the clock (the unit tests pass
    a fake one). Without a wait_timeout the module runs once and its result is returned as it is.
    """
    args = dict(args)
    wait_timeout = int(args.get("wait_timeout", 0))
    poll_interval = float(args.pop("poll_interval", 1))
    started = now()
    bytes_read_at, copy = None, {}   # the last bytes figure: bytes_missing and copy_progress

    def check():
        nonlocal bytes_read_at
        call, called_at = dict(args, wait_timeout=0), now()
        if bytes_read_at is not None and called_at - bytes_read_at < BYTES_INTERVAL_SECONDS:
            call.pop("kafka_tools_home", None)
        result = execute(call)
        if "bytes_missing" in result:  # the module read them (it skips the tool until the broker registered)
            bytes_read_at = called_at
        if result.get("failed") and "module_stderr" in result and "retryable" not in result:
            # The module's process died without an answer: librdkafka aborts on an assertion when a broker refuses
            # an admin request's connection while it starts. As any retryable failure, for at most the grace.
            died = (result["module_stderr"].strip().splitlines() or ["no output"])[-1]
            result.update(retryable=True, msg=f"the module's process died ({died})")
        if "bytes_missing" in result:
            copy.update(bytes_missing=result["bytes_missing"], copy_progress=result["copy_progress"])
        elif copy and not result.get("failed"):
            result.update(remaining=copy["bytes_missing"], bytes_missing=copy["bytes_missing"],
                          copy_progress=copy["copy_progress"])
        return result

    result = check()
    if wait_timeout <= 0:
        return result
    samples, last_line, failing_since = [], None, None
    while True:
        waited = now() - started
        if not result.get("failed") and result.get("done"):
            result["waited"] = round(waited, 1)
            return result
        if result.get("failed"):
            failing_since = failing_since if failing_since is not None else waited
            if not result.get("retryable"):
                return result  # waiting cannot fix it: fail now, with the module's error
            if waited - failing_since > ERROR_GRACE_SECONDS:
                result["msg"] = f"still failing after {ERROR_GRACE_SECONDS}s: {result.get('msg')}"
                return result
            line = f"cannot check yet: {result.get('msg')}"
        else:
            failing_since = None
            samples.append((waited, result.get("remaining")))
            line = result.get("progress", "") + result.get("copy_progress", "")
        if line != last_line or int(waited) % 30 < poll_interval:
            display.display(f"  [{name}] {line} (waited {waited:.0f}s{eta_text(samples)})")
            last_line = line
        if waited >= wait_timeout:
            break
        sleep(poll_interval)
        result = check()
    result["failed"] = True
    result["waited"] = round(waited, 1)
    result["msg"] = result.get("timeout_msg") or f"gave up after {wait_timeout}s: {result.get('msg')}"
    return result


class ActionModule(ActionBase):
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        super().run(tmp, task_vars)
        module = self._task.action  # the module's full name: kafkaops.toolkit.<module>

        def execute(module_args):
            return self._execute_module(module_name=module, module_args=module_args, task_vars=task_vars)

        return wait(execute, self._task.args, module.split(".")[-1])
