#!/usr/bin/env bash
# Formats the C, C++ and CUDA sources with the project's .clang-format (Debian 12's clang-format 14).
#   scripts/format.sh            rewrites the files in place
#   scripts/format.sh --check    changes nothing; lists the files that differ and fails if any does
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" > /dev/null || { echo "format.sh: $cf not found (Debian: apt-get install clang-format; scripts/setup.sh installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh' 2> /dev/null || find include src tests bench examples -name '*.[ch]' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh')
if [[ ${1:-} == --check ]]; then
  bad=0
  for f in "${files[@]}"; do
    if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
      echo "not formatted: $f (scripts/format.sh fixes it)"
      bad=1
    fi
  done
  (( bad == 0 )) && echo "format: ${#files[@]} files formatted as .clang-format says"
  exit $bad
fi
"$cf" --style=file -i "${files[@]}"
