// This file only mentions f2::masked_softmax and namespace f1 in comments,
/* #include "attention.hpp" and namespace f3 { } in a block comment, */
// and in a string:
const char* text = "namespace f4 { #include \"masked_softmax.hpp\" }";
int unrelated() { return 0; }
