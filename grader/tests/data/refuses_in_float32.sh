#!/bin/sh
# Test fixture: like refuses_everything.sh, but its hello declares float32
# storage ("precision", PROTOCOL.md): the report says "float32 (from the hello)".
echo '{"v":1,"hello":"attnlab-protocol/1","ok":true,"language":"sh","ops":["attention"],"precision":"float32"}'
while read -r line; do
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  echo "{\"v\":1,\"id\":$id,\"ok\":false,\"error\":{\"type\":\"NotImplemented\",\"message\":\"todo\"}}"
done
