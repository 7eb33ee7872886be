# exercise: F5
def softmax_rows(S):
    return S
