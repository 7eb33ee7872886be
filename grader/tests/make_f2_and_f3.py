"""make_f2_and_f3.py SOURCE_DIR OUT: writes OUT, a student's Python file of
exercises F2 and F3 in one (the common homework layout): the F2 model
solution, then the F3 model solution whose softmax calls that file's own
masked_softmax. Made from the solutions, so it stays correct as they change.
"""
import sys

src, out = sys.argv[1], sys.argv[2]
f2 = open(src + "/solutions/F2/masked_softmax.py").read()
f3 = open(src + "/solutions/F3/attention.py").read()
old = ("    weights = np.exp(logits - row_max)\n"
       "    weights /= weights.sum(axis=1, keepdims=True)\n")
assert old in f3, "solutions/F3/attention.py no longer computes its weights as expected"
f3 = f3.replace(old, "    weights = masked_softmax(logits, forbidden)\n")
open(out, "w").write(f2 + "\n\n" + f3)
