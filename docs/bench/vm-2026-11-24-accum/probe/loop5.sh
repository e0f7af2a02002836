#!/bin/bash
end=$((SECONDS+${1:-600}))
while (( SECONDS < end )); do
  for ch in 1 8; do CH=$ch CFGS=${CF:-1:8192,100:8192} /tmp/s17/stceil3b 48 40 2 1 | sed "s/^/$(date +%T) CH$ch /"; done
done
echo done
