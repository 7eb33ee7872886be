// exercise: F3
// expect-exit: 1
// expect-text: NOT GRADABLE
// args: --compile-timeout 10
// Hostile: includes an endless file; the compiler's time limit ends it.
#include "/dev/zero"
