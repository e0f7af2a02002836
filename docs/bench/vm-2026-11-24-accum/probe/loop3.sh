#!/bin/bash
end=$((SECONDS+${1:-600}))
while (( SECONDS < end )); do
  for T in 2 1; do CFGS=2:8192,1:8192,100:8192,101:8192,102:8192 /tmp/s17/stceil3 48 40 $T 1 | sed "s/^/$(date +%T) T$T /"; done
done
echo done
