#!/bin/sh
# Test fixture: the minimal submission of PROTOCOL.md ("A minimal submission
# in another language"): says hello, then refuses every case.
echo '{"v":1,"hello":"attnlab-protocol/1","ok":true,"language":"sh","ops":["attention"]}'
while read -r line; do
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  echo "{\"v\":1,\"id\":$id,\"ok\":false,\"error\":{\"type\":\"NotImplemented\",\"message\":\"todo\"}}"
done
