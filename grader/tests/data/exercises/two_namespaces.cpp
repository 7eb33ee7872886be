#include "softmax_rows.hpp"
namespace f1 {
Matrix softmax_rows(const Matrix& S) { return S; }
}
namespace f3 {
int helper() { return 0; }
}
