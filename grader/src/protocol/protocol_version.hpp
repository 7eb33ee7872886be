#pragma once
// The name and version of the line protocol between the grader and a
// submission (grader/PROTOCOL.md). Shared by the grader and the C++ harness.

namespace attn::grader {

/// Sent by the submission in its hello line; the grader refuses any other.
inline constexpr const char* protocol_name = "attnlab-protocol/1";
/// The "v" member of every line.
inline constexpr int protocol_version = 1;

}  // namespace attn::grader
