#pragma once
#include <vector>
// Softmax of one row in place over the allowed entries; forbidden ones become 0.
void row_softmax(std::vector<double>& row, const std::vector<bool>& forbidden);
