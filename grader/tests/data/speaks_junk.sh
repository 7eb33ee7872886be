#!/bin/sh
# Test fixture: an executable that says hello correctly, then answers every
# request with a line that is not JSON.
echo '{"v":1,"hello":"attnlab-protocol/1","ok":true,"language":"sh","ops":["attention"]}'
while read -r line; do
  echo "this is not json"
done
