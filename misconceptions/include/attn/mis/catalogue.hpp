#pragma once
// The catalogue of misconception families, with stable keys (README.md).

#include <string>
#include <vector>

#include "attn/mis/model.hpp"

namespace attn::mis {

/// Every family, in the order of README.md's table. Keys are stable: the
/// grader and results files refer to them. Built once, never throws.
const std::vector<Family>& catalogue();

/// The family with this key, or nullptr.
const Family* find_family(const std::string& key);

/// The families that apply to an operation.
std::vector<const Family*> families_for(Operation op);

/// True when a diagnosis naming `key` tells the student what to change, in
/// NumPy and in C++/Eigen (the advice of misconceptions/src/explain.cpp, or
/// its advice for a mask builder).
bool has_advice(const std::string& key);

}  // namespace attn::mis
