"""A correct attention kernel that takes one second per call (the model
solution, solutions/F3/attention.py, after a sleep): `attnlab check
--time-budget 2` must stop it, name the properties it did not run and exit
with status 3, whatever the machine's load (100 cases of every property
would take half an hour)."""
import importlib.util
import os
import time

_SOLUTION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                         "solutions", "F3", "attention.py")
_spec = importlib.util.spec_from_file_location("f3_model_solution", _SOLUTION)
_solution = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_solution)


def slow_attention(Q, K, V, mask=None):
    time.sleep(1.0)
    return _solution.scaled_dot_product_attention(Q, K, V, mask)
