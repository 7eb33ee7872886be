# exercise: F3
# expect-exit: 1
# expect-text: cmdline: \S*bwrap --args 3 -- 
# expect-clean-error: ValueError
"""Hostile: reads what the sandbox shows of the host (/proc/1/cmdline,
/proc/self/mountinfo, the environment) and reports it; no path of the
checkout may be among it."""
import os


def _read(p):
    try:
        with open(p, "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError as e:
        return "unreadable (%s)" % e.__class__.__name__


def scaled_dot_product_attention(Q, K, V, mask=None):
    info = "cmdline: " + _read("/proc/1/cmdline")
    info += " | mounts: " + " ".join(l.split()[3] for l in _read("/proc/self/mountinfo").splitlines() if len(l.split()) > 3)
    info += " | env: " + " ".join(sorted(os.environ))
    raise ValueError(info[:550])
