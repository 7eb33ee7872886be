// exercise: F3
// Test fixture (a template: the test fills in @SOLUTION@): a C++ submission
// that does not write the exercise but includes the model solution, once by
// a path relative to the exercise header's folder and, in the generated copy,
// by its absolute path. Inside the sandbox the solution is not there, so
// this does not compile (not gradable); without the sandbox it would pass.
#if defined(ATTNLAB_ABSOLUTE)
#include "@SOLUTION@"
#else
#include "../../solutions/F3/attention.cpp"
#endif
