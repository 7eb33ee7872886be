def helper(S):
    return S
