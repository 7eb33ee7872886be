"""The Python model solutions follow the rule for logits (docs/ARCHITECTURE.md)
on the hand-built cases of logit_rule_cases.json: they refuse where the rule
says and otherwise answer exactly. Usage: python3 logit_rule_solutions.py SOLUTIONS_DIR
Exit 0 when every solution follows the rule, 1 otherwise."""
import importlib.util
import json
import os
import sys
import warnings

import numpy as np


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # overflow warnings are the point here
        try:
            return "answer", call()
        except (ValueError, ArithmeticError) as e:
            return "refuse", e


def judge(label, case, kind, value, want_A):
    if case.get("expect") == "refuse":
        return None if kind == "refuse" else "%s: answered %r instead of refusing" % (label, value)
    if kind == "refuse":
        return "%s: refused (%s) a case the rule answers" % (label, value)
    O, A = (value if isinstance(value, tuple) else (value, None))
    if not np.allclose(np.asarray(O, dtype=float), case["O"], rtol=0, atol=1e-12):
        return "%s: O = %r, expected %r" % (label, O, case["O"])
    if want_A and not np.array_equal(np.asarray(A, dtype=float), np.asarray(case["A"], dtype=float)):
        return "%s: A = %r, expected %r" % (label, A, case["A"])
    return None


def main():
    root = sys.argv[1]
    cases = json.load(open(os.path.join(os.path.dirname(__file__), "logit_rule_cases.json")))
    f3 = load(os.path.join(root, "F3", "attention.py"), "f3")
    f4 = load(os.path.join(root, "F4", "masked_attention.py"), "f4")
    t1 = load(os.path.join(root, "T1", "attention_tiled.py"), "t1")
    m1 = load(os.path.join(root, "M1", "multi_head_attention.py"), "m1")
    failures, checked = [], 0
    for c in cases["attention"]:
        Q, K, V = (np.array(c[k], dtype=float) for k in "QKV")
        mask = None if c["mask"] is None else np.array(c["mask"], dtype=bool)
        runs = [("F3", lambda: f3.scaled_dot_product_attention(Q, K, V, mask), True),
                ("F4", lambda: f4.scaled_dot_product_attention(Q, K, V, mask), True),
                ("T1 attention", lambda: t1.attention(Q, K, V, mask), True)]
        for tq, tk in [(1, 1), (2, 2), (1, 2)]:
            runs.append(("T1 attention_tiled %dx%d" % (tq, tk),
                          lambda tq=tq, tk=tk: (t1.attention_tiled(Q, K, V, mask, tq, tk)[0], None),
                          False))
        for who, call, want_A in runs:
            kind, value = outcome(call)
            failure = judge("%s, %s" % (who, c["name"]), c, kind, value, want_A)
            checked += 1
            if failure:
                failures.append(failure)
    for c in cases["multi_head_attention"]:
        X, W_O = np.array(c["X"], dtype=float), np.array(c["W_O"], dtype=float)
        heads = [[np.array(w, dtype=float) for w in c[k]] for k in ("W_Q", "W_K", "W_V")]
        mask = None if c["mask"] is None else np.array(c["mask"], dtype=bool)
        kind, value = outcome(lambda: m1.multi_head_attention(X, *heads, W_O, mask))
        failure = judge("M1, " + c["name"], c, kind, value, False)
        checked += 1
        if failure:
            failures.append(failure)
    for f in failures:
        print("FAIL " + f)
    print("%d solution runs checked, %d break the rule for logits" % (checked, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
