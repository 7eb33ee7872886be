# exercise: F3
# expect-exit: 1
# expect-text: wrote: none
"""Hostile: tries to write into the system, the home folder, the folder of
its own file and the checkout's place inside the sandbox, and reports
where it could (its private /tmp is allowed and not tried)."""
import os


def scaled_dot_product_attention(Q, K, V, mask=None):
    here = os.path.dirname(os.path.abspath(__file__))
    wrote = []
    for d in ("/usr", "/etc", "/root", "/", here, "/attnlab"):
        try:
            with open(os.path.join(d, "attnlab-hostile-was-here"), "w") as f:
                f.write("x")
            wrote.append(d)
        except OSError:
            pass
    raise ValueError("wrote: " + (", ".join(wrote) or "none"))
