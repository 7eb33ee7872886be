# exercise: F3
# expect-exit: 1
# expect-text: network: unreachable
"""Hostile: tries to reach the network (a loopback port of the grader's
machine and a public address) and reports what it saw as its error."""
import socket


def scaled_dot_product_attention(Q, K, V, mask=None):
    seen = []
    for host in ("127.0.0.1", "192.0.2.1"):
        try:
            socket.create_connection((host, 22), timeout=1).close()
            seen.append(host + " reachable")
        except OSError:
            seen.append("unreachable")
    raise ValueError("network: " + ", ".join(seen))
