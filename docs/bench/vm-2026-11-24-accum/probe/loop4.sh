#!/bin/bash
end=$((SECONDS+${1:-600}))
while (( SECONDS < end )); do
  for T in 2; do CFGS=${CF:-1:8192,2:8192,100:8192,1:0} /tmp/s17/stceil3b 48 40 $T 1 | sed "s/^/$(date +%T) T$T /"; done
done
echo done
